"""Grid rules of <kernel>.json, evaluated by libtilec-runtime.so
(tilec.evaluate_grid)."""

import pytest

from tilec import evaluate_grid
from tilec.errors import GridRuleError


def evaluate(expr, env):
    return evaluate_grid([expr], env)[0]


@pytest.mark.parametrize("expr,env,value", [
    ("ceildiv(M, 128) * ceildiv(N, 256)", {"M": 1000, "N": 513}, 24),
    ("ceildiv(M, 4)", {"M": 0}, 0),
    ("N - 1", {"N": 5}, 4),
    ("-(3) + 2 * 4 - mod(7, 3) + floordiv(-7, 2)", {}, 0),
    ("(a + b) * 2", {"a": 1, "b": 2}, 6),
])
def test_values(expr, env, value):
    assert evaluate(expr, env) == value
    assert evaluate(expr, env) == value  # the memoized form gives the same


def test_grid_is_padded_to_three_dimensions():
    assert evaluate_grid(["ceildiv(N, 128)", "ceildiv(M, 32)"], {"M": 33, "N": 129}) == (2, 2, 1)


@pytest.mark.parametrize("expr,message", [
    ("ceildiv(M, 0)", "division by zero"),
    ("X + 1", "unknown parameter 'X'"),
    ("1 +", "grid expression '1 \\+'"),
    ("M $ 2", "trailing input"),
])
def test_errors(expr, message):
    with pytest.raises(GridRuleError, match=message):
        evaluate(expr, {"M": 3})
