"""`python3 -m gen --bc-check OLD_DIR`: one test per rule of Note [Backward-compatible schema
changes] (gen/model/compat.py), the changes that are fine, the allow-list, and the CLI."""
from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from genutil import REPO, make_yaml_dir, run_gen

from gen import pipeline
from gen.model.compat import parse_allow_list
from gen.model.errors import SpecErrors

TODAY = datetime.date(2026, 11, 26)

OLD = """\
- func: scale(Tensor self, float factor=2.0, *, bool inplace=False) -> Tensor
  dispatch:
    CPU: scale
- func: scale.out(Tensor self, float factor=2.0, *, Tensor(a!) out) -> Tensor(a!)
  dispatch:
    CPU: scale_out
- func: split2(Tensor self) -> (Tensor first, Tensor second)
  dispatch:
    CPU: split2
"""


def dirs(tmp_path: Path, new: str) -> tuple[Path, Path]:
    return make_yaml_dir(tmp_path / "old", OLD), make_yaml_dir(tmp_path / "new", new)


def breaks(tmp_path: Path, new: str) -> list[str]:
    old, new_dir = dirs(tmp_path, new)
    return [str(b) for b in pipeline.bc_check(str(old), str(new_dir), None, TODAY).breaks]


def replace(old: str, new: str) -> str:
    assert old in OLD
    return OLD.replace(old, new)


def test_the_same_file_is_compatible(tmp_path):
    assert breaks(tmp_path, OLD) == []


@pytest.mark.parametrize("change", [
    "- func: scale.Scalar(Tensor self, Scalar factor) -> Tensor\n  dispatch:\n    CPU: scale_scalar\n",  # a new overload
    "- func: other(Tensor self) -> Tensor\n  dispatch:\n    CPU: other\n",  # a new operator
])
def test_additions_are_compatible(tmp_path, change):
    assert breaks(tmp_path, OLD + change) == []


def test_a_new_argument_with_a_default_and_other_keys_are_compatible(tmp_path):
    new = replace("scale(Tensor self, float factor=2.0, *, bool inplace=False) -> Tensor\n  dispatch:\n    CPU: scale",
                  "scale(Tensor self, float factor=2.0, int times=1, *, bool inplace=False, bool fast=True) -> Tensor\n"
                  "  variants: function, method\n  dispatch:\n    CPU: scale_v2\n  tags: pointwise")
    assert breaks(tmp_path, new) == []


def test_a_removed_overload_is_named_with_its_old_place(tmp_path):
    new = replace("- func: split2(Tensor self) -> (Tensor first, Tensor second)\n  dispatch:\n    CPU: split2\n", "")
    (msg,) = breaks(tmp_path, new)
    assert msg.startswith(f"{tmp_path / 'new' / 'yaml' / 'native_functions.yaml'}:1:1: error: ")
    assert "'aten::split2': the overload was removed (it was at " in msg and "old" in msg


def test_a_renamed_positional_argument(tmp_path):
    (msg,) = breaks(tmp_path, replace("float factor=2.0, *, bool", "float scale=2.0, *, bool"))
    assert ":1:9: error: backward-incompatible change to 'aten::scale': positional argument 1 was 'factor', is 'scale'" in msg


def test_moved_positional_arguments(tmp_path):
    new = replace("scale(Tensor self, float factor=2.0, *", "scale(float factor, Tensor self, *")
    assert any("positional argument 0 was 'self', is 'factor'" in m for m in breaks(tmp_path, new))


def test_a_changed_argument_type(tmp_path):
    (msg,) = breaks(tmp_path, replace("float factor=2.0, *, bool", "int factor=2, *, bool"))
    assert "argument 'factor' changed type from 'float' to 'int'" in msg


def test_a_removed_default(tmp_path):
    (msg,) = breaks(tmp_path, replace("float factor=2.0, *, bool", "float factor, *, bool"))
    assert "argument 'factor' lost its default (was 2.0)" in msg


def test_a_changed_default(tmp_path):
    (msg,) = breaks(tmp_path, replace("bool inplace=False", "bool inplace=True"))
    assert "argument 'inplace' changed its default from False to True" in msg


def test_a_positional_argument_added_without_a_default(tmp_path):
    (msg,) = breaks(tmp_path, replace("float factor=2.0, *, bool", "float factor=2.0, int times, *, bool"))
    assert "positional argument 'times' was added without a default" in msg


def test_a_keyword_only_argument_added_without_a_default_or_removed(tmp_path):
    (added,) = breaks(tmp_path, replace("bool inplace=False)", "bool inplace=False, bool fast)"))
    assert "keyword-only argument 'fast' was added without a default" in added
    (removed,) = breaks(tmp_path, replace(", *, bool inplace=False) -> Tensor", ") -> Tensor"))
    assert "keyword-only argument 'inplace' was removed" in removed


def test_a_positional_argument_made_keyword_only(tmp_path):
    (msg,) = breaks(tmp_path, replace("float factor=2.0, *, bool inplace", "*, float factor=2.0, bool inplace"))
    assert "positional argument 1 'factor' was removed (it is keyword-only now)" in msg


def test_changed_returns(tmp_path):
    (count,) = breaks(tmp_path, replace("-> (Tensor first, Tensor second)", "-> Tensor"))
    assert "the returns changed from (Tensor first, Tensor second) to (Tensor)" in count
    (names,) = breaks(tmp_path, replace("-> (Tensor first, Tensor second)", "-> (Tensor a, Tensor b)"))
    assert "the returns changed" in names


def test_an_alias_annotation_added(tmp_path):
    (view,) = breaks(tmp_path, replace("scale.out(Tensor self,", "scale.out(Tensor(b) self,"))
    assert "argument 'self' changed type from 'Tensor' to 'Tensor(b)'" in view
    old = make_yaml_dir(tmp_path / "o", "- func: foo(Tensor self, Tensor stats) -> Tensor\n  dispatch:\n    CPU: foo\n")
    new = make_yaml_dir(tmp_path / "n", "- func: foo(Tensor self, Tensor(a!) stats) -> Tensor\n  dispatch:\n    CPU: foo\n")
    (mutated,) = pipeline.bc_check(str(old), str(new), None, TODAY).breaks
    assert "argument 'stats' changed type from 'Tensor' to 'Tensor(a!)'" in str(mutated)


def test_the_allow_list_excuses_until_its_date(tmp_path):
    old, new = dirs(tmp_path, replace("float factor=2.0, *, bool", "float factor, *, bool"))
    allow = tmp_path / "allow.txt"
    allow.write_text("# name     expires     why\naten::scale 2026-12-31 default dropped in #42\n"
                     "aten::gone* 2026-01-01\n")
    verdict = pipeline.bc_check(str(old), str(new), str(allow), TODAY)
    assert verdict.breaks == () and len(verdict.allowed) == 1
    assert [a.pattern for a in verdict.expired] == ["aten::gone*"]
    later = pipeline.bc_check(str(old), str(new), str(allow), datetime.date(2027, 1, 1))
    assert len(later.breaks) == 1 and later.allowed == ()


def test_allow_list_prefixes_and_bare_names():
    entries, errors = parse_allow_list("scale* 2030-01-01\naten::split2 2030-01-01\n", "allow.txt")
    assert errors == []
    assert entries[0].covers("aten::scale.out") and entries[0].covers("aten::scale")
    assert entries[1].covers("aten::split2") and not entries[1].covers("aten::split2.out")


def test_allow_list_errors_are_located():
    _, errors = parse_allow_list("aten::ok 2030-01-01\n  bad-name! 2030-01-01\naten::x 2030-13-01\naten::y\n",
                                 "allow.txt")
    assert [str(e) for e in errors] == [
        "allow.txt:2:3: error: 'bad-name!' is not an operator name (ns::name.overload, or a prefix ending in *)",
        "allow.txt:3:9: error: '2030-13-01' is not a date (YYYY-MM-DD)",
        "allow.txt:4:1: error: expected 'NAME YYYY-MM-DD [reason]', got 'aten::y'",
    ]


def test_a_mistake_in_the_old_yaml_is_reported_as_such(tmp_path):
    old = make_yaml_dir(tmp_path / "old", "- func: broken(\n")
    new = make_yaml_dir(tmp_path / "new", OLD)
    with pytest.raises(SpecErrors) as info:
        pipeline.bc_check(str(old), str(new), None, TODAY)
    assert str(old) in str(info.value.errors[0].loc)


def test_cli_exit_status_and_messages(tmp_path):
    old, new = dirs(tmp_path, replace("float factor=2.0, *, bool", "float factor, *, bool"))
    r = run_gen("--yaml-dir", str(new), "--bc-check", str(old))
    assert r.returncode == 1
    assert "lost its default" in r.stderr and "1 backward-incompatible change(s)" in r.stderr
    allow = tmp_path / "allow.txt"
    allow.write_text("aten::scale 2999-01-01\n")
    r = run_gen("--yaml-dir", str(new), "--bc-check", str(old), "--bc-allow", str(allow))
    assert r.returncode == 0 and "compatible with" in r.stdout and "note: allowed" in r.stderr
    r = run_gen("--yaml-dir", str(REPO / "yaml"), "--bc-check", str(REPO / "yaml"))
    assert r.returncode == 0, r.stderr
    r = run_gen("--bc-allow", str(allow))
    assert r.returncode == 2 and "--bc-allow goes with --bc-check" in r.stderr
