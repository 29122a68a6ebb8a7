"""What the compiler library says about a bad program, through
tilec.compile: a misspelled op gets the closest registered op, and a
verifier error comes without a dump of the op in generic form."""

import pytest

import tilec

MISSPELLED = """
tile.kernel @k(%A: !tile.ptr<f32>, %N: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %v = tile.make_view %A[%N] strides [1] : !tile.ptr<f32>
  %t = tile.lod %v[%c0] : !tile.view<?xf32, strides = [1]> -> tensor<128xf32>
  tile.return
}
"""

INVALID = """
tile.kernel @k() warps(6) {
  tile.return
}
"""


def test_misspelled_op_gets_a_suggestion(library):
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(MISSPELLED, chip="sm_80", emit="ptx", cache=False)
    assert "custom op 'tile.lod' is unknown" in info.value.diagnostics
    assert "note: did you mean 'tile.load'?" in info.value.diagnostics


def test_verifier_error_without_the_generic_op_dump(library):
    with pytest.raises(tilec.CompileError) as info:
        tilec.compile(INVALID, chip="sm_80", emit="ptx", cache=False)
    assert "expected warps to be a power of two in [1, 32], got 6" in info.value.diagnostics
    assert "see current operation" not in info.value.diagnostics
    assert '"tile.kernel"()' not in info.value.diagnostics
