"""The mutators of tests/fuzz/fuzz_gen.py: random edits of text (Mutator), of YAML lines
(mutate_lines) and of YAML data (mutate_structure), and schema strings made from the grammar
(generated_schema). Every function takes its random.Random: a seed gives the same inputs."""
from __future__ import annotations

import copy
import random
import re
from dataclasses import dataclass
from typing import Optional

from gen.model.schema import BASE_TYPES

# ---------------------------------------------------------------------------------------------
# Mutation

# Pieces of the schema language and of YAML that random bytes would rarely produce.
SCHEMA_TOKENS = (
    "(", ")", "[", "]", "?", "*", ", ", ",", " ", "=", "!", "|", " -> ", "->", "::", ".", "'", '"', "\\",
    "*, ", "(a!)", "(a)", "(a -> *)", "(a|b)", "[]", "[2]", "?[]", "[]?", "None", "True", "False",
    "Mean", "Sum", "-", "1", "0", "-1", "1.5", "1e-05", "inf", "-inf", "nan", "[0,1]", "[]", "''",
    '""', "Tensor", "int", "float", "bool", "str", "Scalar", "SymInt", "ScalarType", "Device",
    "Layout", "MemoryFormat", "DeviceIndex", "SymBool", "Generator", "Dimname", "self", "out",
    "\t", "\n", "\x00", "\u00e9", "\u0661", "\u00b2", "\uff3f", "\u212a", "ǅ",
)
YAML_TOKENS = (
    "- func: ", "func: ", "dispatch:", "  CPU: ", "variants: function, method", "structured: True",
    "structured_delegate: ", "autogen: ", "tags: ", "name: ", "self: ", "result: ", "- ", ": ",
    "{", "}", "[", "]", "&a ", "*a", "!!str ", "!!python/name:os.system ", "~", "null", "''", '"',
    "'", "#", "\t", "\n", "  ", "---\n", "...\n", "<<: *a\n", "? ", "|\n", ">\n", "%YAML 1.1\n",
    "\\u00e9", "\\ud800", "\\x00", "\ufeff", "\u2028", "\x85", "\r", "\r\n", "1e400", "0x10",
)


@dataclass(frozen=True)
class Mutator:
    """Random edits of text: character and range edits, dictionary tokens, splices with other
    inputs. `tokens` is the dictionary; `unicode` lets random characters go beyond ASCII."""

    rng: random.Random
    tokens: tuple[str, ...]
    unicode: bool = True

    def char(self) -> str:
        r = self.rng.random()
        if r < 0.8 or not self.unicode:
            return chr(self.rng.randrange(32, 127))
        if r < 0.9:
            return chr(self.rng.randrange(0, 32))
        return chr(self.rng.choice((self.rng.randrange(0x80, 0x800), self.rng.randrange(0x800, 0xD800),
                                    self.rng.randrange(0xE000, 0x110000))))

    def mutate(self, text: str, others: list[str]) -> str:
        for _ in range(1 + int(self.rng.expovariate(0.7))):
            text = self.rng.choice(self._EDITS)(self, text, others)
        return text

    def _span(self, text: str) -> tuple[int, int]:
        i = self.rng.randrange(len(text) + 1)
        return i, min(len(text), i + 1 + int(self.rng.expovariate(0.3)))

    def _insert_token(self, text: str, others: list[str]) -> str:
        i = self.rng.randrange(len(text) + 1)
        return text[:i] + self.rng.choice(self.tokens) + text[i:]

    def _replace_with_token(self, text: str, others: list[str]) -> str:
        i, j = self._span(text)
        return text[:i] + self.rng.choice(self.tokens) + text[j:]

    def _delete(self, text: str, others: list[str]) -> str:
        i, j = self._span(text)
        return text[:i] + text[j:]

    def _set_char(self, text: str, others: list[str]) -> str:
        i = self.rng.randrange(len(text) + 1)
        return text[:i] + self.char() + text[i + 1:]

    def _insert_char(self, text: str, others: list[str]) -> str:
        i = self.rng.randrange(len(text) + 1)
        return text[:i] + self.char() + text[i:]

    def _duplicate(self, text: str, others: list[str]) -> str:
        i, j = self._span(text)
        k = self.rng.randrange(len(text) + 1)
        return text[:k] + text[i:j] + text[k:]

    def _splice(self, text: str, others: list[str]) -> str:
        other = self.rng.choice(others) if others else text
        i, j = self.rng.randrange(len(text) + 1), self.rng.randrange(len(other) + 1)
        return text[:i] + other[j:] if self.rng.random() < 0.5 else other[:j] + text[i:]

    def _copy_from_other(self, text: str, others: list[str]) -> str:
        other = self.rng.choice(others) if others else text
        i, j = self._span(other)
        k = self.rng.randrange(len(text) + 1)
        return text[:k] + other[i:j] + text[k:]

    def _swap_words(self, text: str, others: list[str]) -> str:
        words = [m for m in re.finditer(r"[A-Za-z_0-9.\-]+", text)]
        if not words:
            return text
        m = self.rng.choice(words)
        other = self.rng.choice(others) if others else text
        replacement = self.rng.choice(re.findall(r"[A-Za-z_0-9.\-]+", other) or [""])
        return text[:m.start()] + replacement + text[m.end():]

    _EDITS = (_insert_token, _replace_with_token, _delete, _set_char, _insert_char,
                                    _duplicate, _splice, _copy_from_other, _swap_words, _insert_token)


def mutate_lines(m: Mutator, text: str, others: list[str]) -> str:
    """A YAML edit: one of the Mutator's on the whole text or on one line, or a line-level edit
    (delete, duplicate, move, re-indent, or a line from another file)."""
    lines = text.split("\n")
    i = m.rng.randrange(len(lines))
    op = m.rng.randrange(7)
    if op == 0:
        del lines[i]
    elif op == 1:
        lines.insert(m.rng.randrange(len(lines) + 1), lines[i])
    elif op == 2:
        lines.insert(m.rng.randrange(len(lines) + 1), lines.pop(i))
    elif op == 3:
        lines[i] = "  " + lines[i] if m.rng.random() < 0.5 else lines[i][2:] if lines[i].startswith("  ") else lines[i]
    elif op == 4:
        other = m.rng.choice(others).split("\n") if others else lines
        lines.insert(i, m.rng.choice(other))
    elif op == 5:
        lines[i] = m.mutate(lines[i], others)
    else:
        return m.mutate(text, others)
    return "\n".join(lines)


def _random_value(rng: random.Random, others: list[str], depth: int = 0) -> object:
    """A YAML value of a random kind: scalars of every type, words of the other files, lists and
    mappings of them."""
    kind = rng.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return rng.choice((None, True, False, 0, -1, 1.5, "", "None", float("inf")))
    if kind in (1, 2, 3):
        words = re.findall(r"[A-Za-z_][A-Za-z_0-9.:]*", rng.choice(others)) if others else []
        return rng.choice(words) if words else "x"
    if kind == 4:
        line = rng.choice(rng.choice(others).split("\n")) if others else ""
        return line.strip(" -")
    if kind == 5:
        return rng.randrange(-3, 300)
    if kind in (6, 7):
        return [_random_value(rng, others, depth + 1) for _ in range(rng.randrange(3))]
    return {str(_random_value(rng, others, depth + 1)): _random_value(rng, others, depth + 1)
            for _ in range(rng.randrange(3))}


def _nodes(data: object, out: list, seen: Optional[set[int]] = None) -> list:
    """(container, key) of every value in `data`, containers first; each container once (an
    edit may make the data recursive: YAML writes it with an alias)."""
    seen = set() if seen is None else seen
    if id(data) in seen:
        return out
    seen.add(id(data))
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in list(items):
        out.append((data, key))
        _nodes(value, out, seen)
    return out


def mutate_structure(rng: random.Random, text: str, others: list[str]) -> str:
    """A YAML edit that keeps it YAML: load, replace, drop or add one value, dump. Unchanged
    when `text` does not load."""
    import yaml
    try:
        data = yaml.safe_load(text)
    except Exception:  # noqa: BLE001  (any YAML error: leave it to the text edits)
        return text
    nodes = _nodes(data, [])
    if not nodes:
        return text
    container, key = rng.choice(nodes)
    op = rng.randrange(4)
    if op == 0:
        container[key] = _random_value(rng, others)
    elif op == 1 and isinstance(container, dict):
        del container[key]
    elif op == 1:
        container.pop(key)
    elif op == 2 and isinstance(container, dict):
        container[str(_random_value(rng, others))] = container[key]
    else:  # a copy (an alias, now and then: YAML writes it as an anchor, which opcore rejects)
        other_container, other_key = rng.choice(nodes)
        value = other_container[other_key]
        container[key] = value if rng.random() < 0.1 else copy.deepcopy(value)
    try:
        return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=1000)
    except Exception:  # noqa: BLE001  (a value safe_dump cannot write)
        return text


# ---------------------------------------------------------------------------------------------
# Schema strings made from the grammar (mostly valid, sometimes just off)

_DEFAULTS = {
    "int": ("0", "-1", "1", "Mean", "Sum", "9223372036854775807", "-0", "00", "1.5", "+1", "1e3", "x"),
    "float": ("1e-05", "-inf", "inf", "nan", "0.5", "1.", "1e5", "-nan", ".5", "1e", "1.2.3", "2.5e+3", "1-", "1e+-3"),
    "bool": ("True", "False", "1", "true"),
    "str": ('"mean"', "'none'", "''", '"a\\"b"', "'it\\'s'", '"a,b)c"', "'\\n'", '"x', "mean", '"a\\\\"'),
    "Scalar": ("1", "-1", "2.5", "True", "1e-3", "inf", "x"),
    "ScalarType": ("long", "float", "1", "a.b"),
    "list": ("[]", "[0,1]", "[1,]", "[,]", "[True,False]", "[0.5,-1]", "1", "[a]", "[ 1]", "[1, 2]", "[-1]",
             "[inf]", "[1e5]", "[1.]", "[True]", "[0,[1]]", "[None]", '["a"]', "[1,,2]", "[-]"),
}
_ALIASES = ("a", "a!", "a -> *", "a! -> *", "a|b", "a|b!", "", "!", "a!!", "a ->*", "*", "a -> b", "a|", "1",
            "a|b -> *", "b!")
_SUFFIXES = ("", "", "", "?", "[]", "[2]", "[]?", "?[]", "[1]?", "?[]?", "??", "[][]", "[02]", "[]??", "[1")
_NAMES = ("self", "other", "out", "a", "b", "dim", "x", "_", "__x", "a1", "A", "int", "None")
_OPS = ("add", "add_", "__iadd__", "f", "ns::f", "aten::add", "_f", "a::b::c", "f1")
_OVERLOADS = ("", "", "Tensor", "out", "a_1", "int", "1")


def _default_for(rng: random.Random, t: str, suffix: str) -> str:
    if rng.random() < 0.15:
        return "None"
    if "[" in suffix:
        pool = _DEFAULTS["list"]
    elif t in ("Layout", "MemoryFormat", "Device"):
        pool = _DEFAULTS["ScalarType"]
    else:
        pool = _DEFAULTS.get(t) or _DEFAULTS[rng.choice(list(_DEFAULTS))]
    return rng.choice(pool)


def _generated_type(rng: random.Random) -> tuple[str, str, str]:
    base = rng.choice(BASE_TYPES) if rng.random() < 0.97 else rng.choice(("Tensr", "Any", "t"))
    alias = f"({rng.choice(_ALIASES)})" if rng.random() < (0.3 if base == "Tensor" else 0.03) else ""
    return base, alias, rng.choice(_SUFFIXES)


def generated_schema(rng: random.Random) -> str:
    """A schema written from the grammar's parts, with an occasional wrong part."""
    name = rng.choice(_OPS) + (("." + o) if (o := rng.choice(_OVERLOADS)) else "")
    args, names = [], rng.sample(_NAMES, k=len(_NAMES))
    star_at = rng.randrange(8) if rng.random() < 0.4 else -1
    for i in range(rng.randrange(6)):
        if i == star_at:
            args.append("*")
        base, alias, suffix = _generated_type(rng)
        arg = f"{base}{alias}{suffix} {names[i] if rng.random() < 0.97 else names[0]}"
        if rng.random() < 0.4:
            arg += "=" + _default_for(rng, base, suffix)
        args.append(arg)
    if star_at >= len(args) and rng.random() < 0.2:
        args.append("*")
    rets = [_generated_type(rng) for _ in range(rng.choice((0, 1, 1, 1, 2, 3)))]
    texts = ["".join(r) + (f" {rng.choice(_NAMES)}" if rng.random() < 0.2 else "") for r in rets]
    returns = texts[0] if len(texts) == 1 and rng.random() < 0.7 else f"({', '.join(texts)})"
    return f"{name}({', '.join(args)}) -> {returns}"
