"""Evaluates the grid rules of <kernel>.json.

A grid rule is a list of 1 to 3 expressions over the kernel's integer
parameters, in the syntax of tile.kernel's ``grid(...)``:

    expr   := term (('+' | '-') term)*
    term   := factor ('*' factor)*
    factor := integer | name | '-' factor | '(' expr ')'
            | ('ceildiv' | 'floordiv' | 'mod') '(' expr ',' expr ')'

The sizes and strides of tensor maps (``tensor_maps`` entries) are
integers, parameter names, or expressions in the same syntax that the
kernel computes too: :func:`view_value` evaluates them with every value in
[0, 2^31), where the kernel's 32-bit arithmetic agrees.
"""

import re

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


class GridRuleError(ValueError):
    pass


def _tokens(text):
    pos = 0
    out = []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise GridRuleError(f"bad grid expression {text!r}")
        pos = m.end()
        num, name, punct = m.groups()
        if num is not None:
            out.append(("int", int(num)))
        elif name is not None:
            out.append(("name", name))
        elif punct.strip():
            out.append(("punct", punct))
    return out


class _Parser:
    """Parses one grid expression into Python source text, which is compiled
    once: a kernel launched many times evaluates its rule as one plain
    Python expression (no parsing, no per-node calls).

    ``resolve(name)`` gives the source text of a parameter reference. Each
    parse method returns ``(source, constant)``, ``constant`` being the
    value when the subexpression is a known integer (else ``None``).
    """

    def __init__(self, text, resolve):
        self.toks = _tokens(text)
        self.i = 0
        self.text = text
        self.resolve = resolve

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, kind=None, value=None):
        tok = self.peek()
        if tok[0] is None or (kind and tok[0] != kind) or (value is not None and tok[1] != value):
            raise GridRuleError(f"unexpected {tok[1]!r} in grid expression {self.text!r}")
        self.i += 1
        return tok

    def parse(self):
        """Source text of the whole expression."""
        src, _ = self.expr()
        if self.i != len(self.toks):
            raise GridRuleError(f"trailing input in grid expression {self.text!r}")
        return src

    def expr(self):
        src, const = self.term()
        while self.peek() in (("punct", "+"), ("punct", "-")):
            op = self.take()[1]
            rsrc, rconst = self.term()
            if const is not None and rconst is not None:
                const = const + rconst if op == "+" else const - rconst
                src = _literal(const)
            else:
                src, const = f"({src} {op} {rsrc})", None
        return src, const

    def term(self):
        src, const = self.factor()
        while self.peek() == ("punct", "*"):
            self.take()
            rsrc, rconst = self.factor()
            if const is not None and rconst is not None:
                const *= rconst
                src = _literal(const)
            else:
                src, const = f"({src} * {rsrc})", None
        return src, const

    def factor(self):
        kind, val = self.peek()
        if kind == "int":
            self.take()
            return _literal(val), val
        if (kind, val) == ("punct", "-"):
            self.take()
            src, const = self.factor()
            if const is not None:
                return _literal(-const), -const
            return f"(-{src})", None
        if (kind, val) == ("punct", "("):
            self.take()
            result = self.expr()
            self.take("punct", ")")
            return result
        if kind == "name" and val in ("ceildiv", "floordiv", "mod"):
            self.take()
            self.take("punct", "(")
            a = self.expr()
            self.take("punct", ",")
            b = self.expr()
            self.take("punct", ")")
            return self._division(val, a, b)
        if kind == "name":
            self.take()
            return self.resolve(val, self.text), None
        raise GridRuleError(f"unexpected {val!r} in grid expression {self.text!r}")

    def _division(self, op, a, b):
        (asrc, aconst), (bsrc, bconst) = a, b
        if bconst is None or bconst == 0:
            # Checked at evaluation: division by zero is a GridRuleError.
            return f"_{op}({asrc}, {bsrc}, {self.text!r})", None
        if aconst is not None:
            value = _DIVISIONS[op](aconst, bconst, self.text)
            return _literal(value), value
        if op == "ceildiv":
            return f"(-((-{asrc}) // {bsrc}))", None
        return f"({asrc} {'//' if op == 'floordiv' else '%'} {bsrc})", None


def _literal(value):
    return f"({value})" if value < 0 else str(value)


def _zero_check(y, text):
    if y == 0:
        raise GridRuleError(f"division by zero in grid expression {text!r}")


def _ceildiv(x, y, text):
    _zero_check(y, text)
    return -((-x) // y)


def _floordiv(x, y, text):
    _zero_check(y, text)
    return x // y


def _mod(x, y, text):
    _zero_check(y, text)
    return x % y


_DIVISIONS = {"ceildiv": _ceildiv, "floordiv": _floordiv, "mod": _mod}


def _param(env, name, text):
    """A parameter's value from an ``env`` mapping (for :func:`evaluate`)."""
    if name not in env:
        raise GridRuleError(f"grid expression {text!r} uses unknown parameter {name!r}")
    return int(env[name])


def _build(source, argument):
    """The function ``lambda <argument>: <source>``."""
    namespace = {"_ceildiv": _ceildiv, "_floordiv": _floordiv, "_mod": _mod, "_param": _param,
                 "_view": _view, "_view_division": _view_division}
    return eval(f"lambda {argument}: {source}", namespace)  # noqa: S307 - generated text


def _env_reference(name, text):
    return f"_param(env, {name!r}, {text!r})"


_compiled = {}


def _compile(expr):
    """The function of an ``env`` mapping computing ``expr`` (memoized)."""
    f = _compiled.get(expr)
    if f is None:
        f = _build(_Parser(expr, _env_reference).parse(), "env")
        _compiled[expr] = f
    return f


def evaluate(expr, env):
    """Value of one grid expression with parameter values ``env``."""
    return _compile(expr)(env)


def evaluate_grid(rule, env):
    """(x, y, z) launch grid from a rule (list of 1-3 expressions)."""
    dims = [evaluate(e, env) for e in rule]
    while len(dims) < 3:
        dims.append(1)
    return tuple(dims)


def compile_rule(rule, positions):
    """A function of a sequence of launch values giving the (x, y, z) grid
    of ``rule``, with ``positions`` mapping each parameter name the rule may
    use to its index in the sequence (the values there must be ints).
    Unknown names raise :class:`GridRuleError` here; division by zero when
    the function is called."""
    if not 1 <= len(rule) <= 3:
        raise GridRuleError(f"a grid rule has 1 to 3 expressions, got {len(rule)}")

    def reference(name, text):
        if name not in positions:
            raise GridRuleError(f"grid expression {text!r} uses unknown parameter {name!r}")
        return f"v[{int(positions[name])}]"

    dims = [_Parser(expr, reference).parse() for expr in rule]
    dims += ["1"] * (3 - len(dims))
    return _build(f"({', '.join(dims)})", "v")


# -- tensor-map sizes and strides ----------------------------------------------

#: Largest value of a size or stride that a kernel computes (32-bit).
MAX_VIEW_VALUE = 2**31 - 1


def _view(value, text):
    if not 0 <= value <= MAX_VIEW_VALUE:
        raise GridRuleError(f"computes {value}, outside [0, 2^31)")
    return value


def _view_division(op, x, y):
    if y == 0:
        raise GridRuleError("divides by zero")
    return _DIVISIONS[op](x, y, "")


class _ViewParser(_Parser):
    """Parses a computed tensor-map size or stride into source text that
    checks every value it computes -- parameters, constants, intermediate
    results -- to be in [0, 2^31): there the kernel's 32-bit arithmetic
    (dividing toward zero) computes the same value. No constant folding:
    each value is checked as the C++ runtime checks it."""

    def expr(self):
        src = self.term()[0]
        while self.peek() in (("punct", "+"), ("punct", "-")):
            op = self.take()[1]
            src = self._check(f"({src} {op} {self.term()[0]})")
        return src, None

    def term(self):
        src = self.factor()[0]
        while self.peek() == ("punct", "*"):
            self.take()
            src = self._check(f"({src} * {self.factor()[0]})")
        return src, None

    def factor(self):
        kind, val = self.peek()
        if kind == "int":
            self.take()
            return self._check(str(val)), None
        if (kind, val) == ("punct", "-"):
            self.take()
            return self._check(f"(-{self.factor()[0]})"), None
        if kind == "name" and val not in _DIVISIONS:
            self.take()
            return self._check(self.resolve(val, self.text)), None
        return super().factor()  # parentheses and divisions

    def _division(self, op, a, b):
        return self._check(f"_view_division({op!r}, {a[0]}, {b[0]})"), None

    def _check(self, src):
        return f"_view({src}, {self.text!r})"


_compiled_views = {}


def _compile_view(expr):
    """(function of an ``env`` mapping, names it reads) of a computed size
    or stride (memoized)."""
    found = _compiled_views.get(expr)
    if found is None:
        names = []

        def reference(name, text):
            if name not in names:
                names.append(name)
            return _env_reference(name, text)

        function = _build(_ViewParser(expr, reference).parse(), "env")
        found = _compiled_views[expr] = (function, tuple(names))
    return found


def is_computed(value):
    """Whether a tensor-map size or stride is an expression (neither an
    integer nor a parameter name)."""
    return isinstance(value, str) and not value.isidentifier()


def view_params(value):
    """The parameter names a tensor-map size or stride reads."""
    if isinstance(value, int):
        return ()
    if not is_computed(value):
        return (value,)
    return _compile_view(value)[1]


def view_value(value, env):
    """A tensor-map size or stride for parameter values ``env``: the
    integer, the parameter's value, or the expression's (raising
    :class:`GridRuleError` for a value outside [0, 2^31) or a division by
    zero)."""
    if isinstance(value, int):
        return value
    if not is_computed(value):
        if value not in env:
            raise GridRuleError(f"unknown parameter {value!r}")
        return int(env[value])
    return _compile_view(value)[0](env)
