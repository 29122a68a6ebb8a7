"""Evaluates the grid rules of <kernel>.json.

A grid rule is a list of 1 to 3 expressions over the kernel's integer
parameters, in the syntax of tile.kernel's ``grid(...)``:

    expr   := term (('+' | '-') term)*
    term   := factor ('*' factor)*
    factor := integer | name | '-' factor | '(' expr ')'
            | ('ceildiv' | 'floordiv' | 'mod') '(' expr ',' expr ')'
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
    """Parses one grid expression into a function of the parameter values,
    so that a kernel launched many times parses its rule once."""

    def __init__(self, text):
        self.toks = _tokens(text)
        self.i = 0
        self.text = text

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, kind=None, value=None):
        tok = self.peek()
        if tok[0] is None or (kind and tok[0] != kind) or (value is not None and tok[1] != value):
            raise GridRuleError(f"unexpected {tok[1]!r} in grid expression {self.text!r}")
        self.i += 1
        return tok

    def expr(self):
        f = self.term()
        while self.peek() in (("punct", "+"), ("punct", "-")):
            op = self.take()[1]
            r = self.term()
            f = (lambda a, b: lambda env: a(env) + b(env))(f, r) if op == "+" else \
                (lambda a, b: lambda env: a(env) - b(env))(f, r)
        return f

    def term(self):
        f = self.factor()
        while self.peek() == ("punct", "*"):
            self.take()
            f = (lambda a, b: lambda env: a(env) * b(env))(f, self.factor())
        return f

    def factor(self):
        kind, val = self.peek()
        if kind == "int":
            self.take()
            return lambda env: val
        if (kind, val) == ("punct", "-"):
            self.take()
            inner = self.factor()
            return lambda env: -inner(env)
        if (kind, val) == ("punct", "("):
            self.take()
            f = self.expr()
            self.take("punct", ")")
            return f
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
            text = self.text

            def parameter(env):
                if val not in env:
                    raise GridRuleError(f"grid expression {text!r} uses unknown parameter {val!r}")
                return int(env[val])
            return parameter
        raise GridRuleError(f"unexpected {val!r} in grid expression {self.text!r}")

    def _division(self, op, a, b):
        text = self.text

        def divide(env):
            x, y = a(env), b(env)
            if y == 0:
                raise GridRuleError(f"division by zero in grid expression {text!r}")
            if op == "ceildiv":
                return -((-x) // y)
            if op == "floordiv":
                return x // y
            return x % y
        return divide


_compiled = {}


def _compile(expr):
    """The function computing ``expr`` (memoized)."""
    f = _compiled.get(expr)
    if f is None:
        p = _Parser(expr)
        f = p.expr()
        if p.i != len(p.toks):
            raise GridRuleError(f"trailing input in grid expression {expr!r}")
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
