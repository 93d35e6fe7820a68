"""bench/report.py, which bench/run.sh uses to write the "Latest run" section of bench/README.md:
tables as Markdown, opcore_bench's JSON read into ratios, and the section replaced in place
(the rest of the README kept byte for byte). The benchmarks themselves are not run here."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from genutil import REPO

sys.path.insert(0, str(REPO / "bench"))
import report  # noqa: E402  (needs the path above)


def test_table_renders_markdown_and_console():
    t = report.Table("t", ["case", "opcore"], [["add", "1.0 (0.9–1.1)"]], ["a note"])
    assert t.markdown() == "| case | opcore |\n| --- | --- |\n| add | 1.0 (0.9–1.1) |\n\na note"
    assert t.console().splitlines() == ["t", "case  opcore", "add   1.0 (0.9–1.1)", "a note"]
    assert report.spread([3.0, 1.0, 2.0]) == "2.0 (1.0–3.0)"


def _run(name: str, cpu_time: float, unit: str = "ns") -> dict:
    return {"name": name, "run_name": name, "run_type": "iteration", "cpu_time": cpu_time, "time_unit": unit}


def test_opcore_bench_json_becomes_ratios(tmp_path: Path):
    runs = [_run("opcore/add_1elem", t) for t in (150, 160, 170)]
    runs += [_run("libtorch/add_1elem", t) for t in (600, 640, 700)]
    runs += [_run("opcore/boxed_call_borrowed", 9.5), _run("libtorch/boxed_call", 19.0)]
    runs += [_run("opcore/add_16M", 11.0, "ms"), _run("opcore/add_out_direct", 70)]
    runs.append({"name": "opcore/add_1elem_median", "run_name": "opcore/add_1elem", "run_type": "aggregate",
                 "cpu_time": 1.0, "time_unit": "ns"})  # aggregates are not repetitions
    path = tmp_path / "opcore_bench.json"
    path.write_text(json.dumps({"benchmarks": runs}))
    rows = {r[0]: r for r in report.opcore_bench_table(path).rows}
    assert rows["add_1elem"] == ["add_1elem", "160.0 (150.0–170.0) ns", "640.0 (600.0–700.0) ns", "0.25x"]
    assert rows["boxed_call_borrowed"][3] == "0.50x"  # against libtorch's owning call
    assert rows["add_16M"][1] == "11.0 (11.0–11.0) ms"
    assert rows["add_out_direct"][2:] == ["–", "–"]


def test_section_is_replaced_in_place_and_lists_topics_in_order(tmp_path: Path):
    (tmp_path / "kernels_bench.md").write_text("| case |\n| --- |\n| add_out |\n")
    (tmp_path / "gen_bench.txt").write_text("opcore 0.3 s\n")
    (tmp_path / "plots").mkdir()
    (tmp_path / "plots" / "add.png").write_bytes(b"png")
    new = report.section(tmp_path, threads=2, readme_dir=tmp_path)
    assert new.startswith(report.BEGIN) and new.endswith(report.END)
    assert new.index("### Kernel throughput") < new.index("![add](plots/add.png)") < new.index("### Generation time")
    assert "```\nopcore 0.3 s\n```" in new
    assert "### Python bindings" not in new  # no result file: no heading
    readme = "# Benchmarks\n\nhand-written\n"
    once = report.replace_section(readme, new)
    assert once.startswith(readme) and once.endswith(report.END + "\n")
    twice = report.replace_section(once.replace("hand-written", "edited"), new)
    assert twice == once.replace("hand-written", "edited")  # replaced, not appended again
