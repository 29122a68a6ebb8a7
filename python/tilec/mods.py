"""FlexAttention's ``score_mod`` and ``mask_mod`` callables traced into the
regions of ``tile.attention``.

The callable runs once on symbolic values (:class:`Sym`): the score (f32)
and the batch, head, query and key indices (i32). Python operators, the
functions of this module (``tanh``, ``exp``, ``where``, ...) and, on torch,
the same ``torch.*`` functions (through ``__torch_function__``) record
``arith``/``math`` ops; Python numbers become constants. The result is the
region's text (its block and ``tile.yield``), which keys the kernel cache.

    region = trace_score_mod(lambda s, b, h, q, k: tanh(s / 50.0) * 50.0)

Division is approximate (``fastmath<afn>``: ``div.full.f32``), and so are
the math functions, as FlexAttention's Triton kernels compute them.

Captured tensors are tables: indexing an int32 or float32 tensor with
traced values (``slopes[h]``, ``doc_ids[b, q_idx] == doc_ids[b, kv_idx]``)
records a ``tile.load_scalar`` of a view the kernel makes above the op
(``%ts0``, ``%ts1``, ... for the score_mod's tables, ``%tm0``, ... for the
mask_mod's), and the trace keeps the tensors, whose pointers, sizes and
strides each launch passes. The text depends only on each table's dtype,
rank and whether its last dimension is contiguous, so :class:`Table`
stands in for a tensor where none exists (precompiling kernels on a
machine without torch or a GPU).
"""

import math
import weakref

from .errors import ArgumentError


class ModTraceError(ArgumentError):
    """A score_mod or mask_mod that cannot become a region."""


_AFN = " fastmath<afn>"


class Table:
    """Stands in for a captured tensor while tracing (see the module doc):
    ``dtype`` "i32" or "f32", ``ndim`` dimensions, ``contiguous`` whether
    the last one has stride 1."""

    def __init__(self, dtype="i32", ndim=1, contiguous=True):
        self.table_dtype, self.ndim, self.contiguous = dtype, ndim, contiguous

    def __getitem__(self, index):
        return _table_read(self, index)


class Trace(str):
    """A region's text (a ``str``), with the tables it reads in ``tables``
    (the captured tensors, in the order of their views' names)."""

    tables = ()


_TABLE_DTYPES = {"torch.int32": "i32", "torch.float32": "f32", "int32": "i32",
                 "float32": "f32"}


def _table_type(obj):
    """(element type, rank, last stride is 1) of a captured tensor or
    :class:`Table`; ModTraceError for other dtypes."""
    if isinstance(obj, Table):
        return obj.table_dtype, obj.ndim, obj.contiguous
    dtype = _TABLE_DTYPES.get(str(getattr(obj, "dtype", None)))
    if dtype is None:
        raise ModTraceError(f"score_mod/mask_mod: a captured tensor of {obj.dtype} cannot be "
                            "read as a table: convert it to torch.int32 or torch.float32")
    return dtype, len(obj.shape), obj.stride()[-1] == 1


class _Region:
    """The ops recorded while tracing one callable."""

    def __init__(self, table_prefix="%t"):
        self.lines = []
        self.count = 0
        self.constants = {}
        self.tables = []  # captured tensors, by first use
        self.table_prefix = table_prefix

    def table(self, obj):
        """(view name, view type, element type) of captured ``obj``."""
        dtype, rank, contiguous = _table_type(obj)
        index = next((i for i, t in enumerate(self.tables) if t is obj), None)
        if index is None:
            index = len(self.tables)
            self.tables.append(obj)
        strides = ["?"] * rank
        if contiguous:
            strides[-1] = "1"
        shape = "x".join(["?"] * rank)
        view = f"!tile.view<{shape}x{dtype}, strides = [{', '.join(strides)}]>"
        return f"{self.table_prefix}{index}", view, dtype

    def value(self, text, printed, type_=None):
        """A new value: ``text`` then `` : printed`` (its operand types as
        the op prints them), of ``type_`` (default ``printed``)."""
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"{name} = {text} : {printed}")
        return Sym(self, name, type_ or printed)

    def constant(self, x, type_):
        key = (repr(x), type_)
        if key not in self.constants:
            if type_ == "f32":
                if math.isnan(x):
                    literal = "0x7FC00000"
                elif math.isinf(x):
                    literal = "0x7F800000" if x > 0 else "0xFF800000"
                else:
                    literal = repr(float(x))
            elif type_ == "i1":
                literal = "true" if x else "false"
            else:
                literal = str(int(x))
            name = f"%c{len(self.constants)}"
            self.lines.append(f"{name} = arith.constant {literal} : {type_}")
            self.constants[key] = Sym(self, name, type_)
        return self.constants[key]


def _sym(region, x, like=None):
    """``x`` as a Sym of ``region``: Syms as they are, Python numbers as
    constants (f32 for floats; i32 for ints, or f32 beside an f32)."""
    if isinstance(x, Sym):
        if x.region is not region:
            raise ModTraceError("a value of another trace was used")
        return x
    if isinstance(x, bool):
        return region.constant(x, "i1")
    if isinstance(x, int):
        if like is not None and like.type == "f32":
            return region.constant(float(x), "f32")
        return region.constant(x, "i32")
    if isinstance(x, float):
        return region.constant(x, "f32")
    raise ModTraceError(f"score_mod/mask_mod: cannot use a {type(x).__name__} (only the "
                        "score, the indices, Python numbers and captured tensors indexed by "
                        "them)")


def _table_read(obj, index):
    """``obj[index]`` of a captured tensor at traced indices: one
    ``tile.load_scalar`` of its view."""
    index = index if isinstance(index, tuple) else (index,)
    region = next((i.region for i in index if isinstance(i, Sym)), None)
    if region is None:
        raise ModTraceError("score_mod/mask_mod: a captured tensor indexed without a traced "
                            "value (index it with b, h, q_idx or kv_idx)")
    syms = [_sym(region, i) for i in index]
    if any(i.type != "i32" for i in syms):
        raise ModTraceError("score_mod/mask_mod: a captured tensor's indices must be integers")
    rank = _table_type(obj)[1]
    if len(syms) != rank:
        raise ModTraceError(f"score_mod/mask_mod: a {len(syms)}-index read of a captured "
                            f"tensor of {rank} dimensions (index every dimension)")
    name, view, dtype = region.table(obj)
    names = ", ".join(i.name for i in syms)
    return region.value(f"tile.load_scalar {name}[{names}]", f"{view} -> {dtype}", dtype)


def _float(x):
    """An i32 Sym converted to f32 (others unchanged)."""
    if x.type == "i32":
        return x.region.value(f"arith.sitofp {x.name}", "i32 to f32", "f32")
    if x.type == "i1":
        raise ModTraceError("score_mod/mask_mod: a boolean used as a number")
    return x


def _binary(a, b, region=None):
    """(a, b) as Syms of one type (of ``region``, by default the region of
    whichever is a Sym): i32 beside f32 becomes f32."""
    region = region or (a.region if isinstance(a, Sym) else b.region)
    a = _sym(region, a, like=b if isinstance(b, Sym) else None)
    b = _sym(region, b, like=a)
    if a.type != b.type:
        if "i1" in (a.type, b.type):
            raise ModTraceError("score_mod/mask_mod: a boolean mixed with a number")
        a, b = _float(a), _float(b)
    return a, b


def _arith(op_i, op_f, a, b, afn=False):
    a, b = _binary(a, b)
    if a.type == "f32":
        return a.region.value(f"arith.{op_f} {a.name}, {b.name}{_AFN if afn else ''}", "f32")
    if op_i is None:
        raise ModTraceError(f"score_mod/mask_mod: {op_f} of integers")
    return a.region.value(f"arith.{op_i} {a.name}, {b.name}", a.type)


def _divide(a, b):
    """a / b in f32 (integers converted), approximate (``afn``)."""
    a, b = _binary(a, b)
    return _arith(None, "divf", _float(a), _float(b), afn=True)


_CMP = {"lt": ("slt", "olt"), "le": ("sle", "ole"), "gt": ("sgt", "ogt"),
        "ge": ("sge", "oge"), "eq": ("eq", "oeq"), "ne": ("ne", "une")}


def _compare(kind, a, b):
    a, b = _binary(a, b)
    if a.type == "f32":
        text = f"arith.cmpf {_CMP[kind][1]}, {a.name}, {b.name}"
    else:
        text = f"arith.cmpi {_CMP[kind][0]}, {a.name}, {b.name}"
    return a.region.value(text, a.type, "i1")


def _logic(op, a, b):
    a, b = _binary(a, b)
    if a.type not in ("i1", "i32"):
        raise ModTraceError("score_mod/mask_mod: &, | and ^ take booleans or integers")
    return a.region.value(f"arith.{op} {a.name}, {b.name}", a.type)


class Sym:
    """A scalar of a traced score_mod / mask_mod: f32, i32 or i1."""

    def __init__(self, region, name, type_):
        self.region, self.name, self.type = region, name, type_

    # arithmetic
    def __add__(self, o): return _arith("addi", "addf", self, o)
    def __radd__(self, o): return _arith("addi", "addf", o, self)
    def __sub__(self, o): return _arith("subi", "subf", self, o)
    def __rsub__(self, o): return _arith("subi", "subf", o, self)
    def __mul__(self, o): return _arith("muli", "mulf", self, o)
    def __rmul__(self, o): return _arith("muli", "mulf", o, self)

    def __truediv__(self, o): return _divide(self, o)
    def __rtruediv__(self, o): return _divide(o, self)

    def __neg__(self):
        if self.type == "f32":
            return self.region.value(f"arith.negf {self.name}", "f32")
        return _arith("subi", "subf", 0, self)

    def __abs__(self):
        op = "math.absf" if self.type == "f32" else "math.absi"
        return self.region.value(f"{op} {self.name}", self.type)

    # comparisons
    def __lt__(self, o): return _compare("lt", self, o)
    def __le__(self, o): return _compare("le", self, o)
    def __gt__(self, o): return _compare("gt", self, o)
    def __ge__(self, o): return _compare("ge", self, o)
    def __eq__(self, o): return _compare("eq", self, o)  # noqa: E704
    def __ne__(self, o): return _compare("ne", self, o)
    __hash__ = object.__hash__

    # booleans
    def __and__(self, o): return _logic("andi", self, o)
    def __rand__(self, o): return _logic("andi", o, self)
    def __or__(self, o): return _logic("ori", self, o)
    def __ror__(self, o): return _logic("ori", o, self)
    def __xor__(self, o): return _logic("xori", self, o)

    def __invert__(self):
        if self.type != "i1":
            raise ModTraceError("score_mod/mask_mod: ~ takes a boolean")
        return _logic("xori", self, True)

    def __bool__(self):
        raise ModTraceError("score_mod/mask_mod: a traced value has no truth value here (use "
                            "tilec.mods.where or torch.where instead of `if` / `and` / `or`)")

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", str(func))
        impl = _TORCH.get(name)
        if impl is None:
            raise ModTraceError(f"score_mod/mask_mod: torch.{name} is not supported (supported: "
                                f"{', '.join(sorted(_TORCH))})")
        return impl(*args, **kwargs)


def _need_sym(x, name):
    if not isinstance(x, Sym):
        raise ModTraceError(f"{name}: expected a traced value, got {type(x).__name__}")
    return x


def _unary_math(op, x):
    """math.<op> (approximate, ``afn``) of the traced value ``x`` as f32."""
    x = _float(_need_sym(x, op))
    return x.region.value(f"math.{op} {x.name}{_AFN}", "f32")


def tanh(x): return _unary_math("tanh", x)
def exp(x): return _unary_math("exp", x)
def exp2(x): return _unary_math("exp2", x)
def log(x): return _unary_math("log", x)
def log2(x): return _unary_math("log2", x)
def sqrt(x): return _unary_math("sqrt", x)
def sin(x): return _unary_math("sin", x)
def cos(x): return _unary_math("cos", x)


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    return 1.0 / (1.0 + exp(-_float(_need_sym(x, "sigmoid"))))


def abs(x):  # noqa: A001 - the torch name
    return _need_sym(x, "abs").__abs__()


def minimum(a, b):
    a, b = _binary(a, b)
    op = "arith.minimumf" if a.type == "f32" else "arith.minsi"
    return a.region.value(f"{op} {a.name}, {b.name}", a.type)


def maximum(a, b):
    a, b = _binary(a, b)
    op = "arith.maximumf" if a.type == "f32" else "arith.maxsi"
    return a.region.value(f"{op} {a.name}, {b.name}", a.type)


def where(cond, a, b):
    """``a`` where ``cond`` holds, else ``b`` (arith.select)."""
    cond = _need_sym(cond, "where")
    if cond.type != "i1":
        raise ModTraceError("where: the condition must be a comparison")
    a, b = _binary(a, b, cond.region)
    return cond.region.value(f"arith.select {cond.name}, {a.name}, {b.name}", a.type)


def _clamp(x, min=None, max=None):  # noqa: A002 - torch's names
    if min is not None:
        x = maximum(x, min)
    if max is not None:
        x = minimum(x, max)
    return x


_TORCH = {"tanh": tanh, "exp": exp, "exp2": exp2, "log": log, "log2": log2, "sqrt": sqrt,
          "sin": sin, "cos": cos, "sigmoid": sigmoid, "abs": abs, "minimum": minimum,
          "maximum": maximum, "where": where, "clamp": _clamp,
          "__add__": Sym.__add__, "__radd__": Sym.__radd__, "__sub__": Sym.__sub__,
          "__rsub__": Sym.__rsub__, "__mul__": Sym.__mul__, "__rmul__": Sym.__rmul__,
          "__truediv__": Sym.__truediv__, "__neg__": Sym.__neg__,
          "__getitem__": _table_read}


def _trace(fn, args, result_type, what, table_prefix):
    """The region text of ``fn`` on block arguments ``args`` ((name,
    type) pairs), whose result must be ``result_type``, as a
    :class:`Trace` (its tables' views named ``table_prefix``0, ...)."""
    region = _Region(table_prefix)
    syms = [Sym(region, name, type_) for name, type_ in args]
    try:
        out = fn(*syms)
    except ModTraceError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's callable
        raise ModTraceError(f"{what}: tracing the callable failed: {type(e).__name__}: {e}") \
            from e
    if isinstance(out, (int, float)) and not isinstance(out, bool) and result_type == "f32":
        out = region.constant(float(out), "f32")
    elif not isinstance(out, Sym):
        out = _sym(region, out)
    if result_type == "i1" and out.type != "i1":
        raise ModTraceError(f"{what} must return a boolean (a comparison), got {out.type}")
    if result_type == "f32":
        out = _float(out)
    header = "^bb0(" + ", ".join(f"{n}: {t}" for n, t in args) + "):"
    body = [header] + [f"  {line}" for line in region.lines] + \
        [f"  tile.yield {out.name} : {out.type}"]
    trace = Trace("\n".join(body))
    trace.tables = tuple(region.tables)
    return trace


#: Traces by callable (weakly held): a call traces its score_mod once, as
#: FlexAttention compiles it once. A callable whose globals or closure
#: change afterwards keeps its first trace (make a new callable instead).
_TRACES = weakref.WeakKeyDictionary()


def _cached(fn, kind, trace):
    try:
        found = _TRACES.get(fn, {}).get(kind)
    except TypeError:  # not weakly referenceable: trace every time
        return trace()
    if found is None:
        found = trace()
        _TRACES.setdefault(fn, {})[kind] = found
    return found


def trace_score_mod(score_mod):
    """The ``score_mod`` region text of ``score_mod(score, b, h, q_idx,
    kv_idx)`` (traced once per callable)."""
    return _cached(score_mod, "score", lambda: _trace(
        score_mod, [("%score", "f32"), ("%b", "i32"), ("%h", "i32"), ("%q_idx", "i32"),
                    ("%kv_idx", "i32")], "f32", "score_mod", "%ts"))


def trace_mask_mod(mask_mod):
    """The ``mask_mod`` region text of ``mask_mod(b, h, q_idx, kv_idx)``
    (traced once per callable)."""
    return _cached(mask_mod, "mask", lambda: _trace(
        mask_mod, [("%b", "i32"), ("%h", "i32"), ("%q_idx", "i32"), ("%kv_idx", "i32")],
        "i1", "mask_mod", "%tm"))
