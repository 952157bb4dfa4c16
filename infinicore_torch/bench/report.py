"""Output of the comparison tool: a terminal table, a JSON file of every result, a CSV of the measured rows
rewritten in place, and a PNG per op."""

from __future__ import annotations

import csv
import json
import os
import sys

COLUMNS = [
    ("op", 24),
    ("shape", 26),
    ("dtype", 9),
    ("impl", 8),
    ("median us", 12),
    ("p10", 11),
    ("p90", 11),
    ("GB/s", 8),
    ("TFLOP/s", 8),
    ("%copy", 6),
    ("rel_l2", 9),
    ("check", 6),
]


def _fmt(r: dict) -> list[str]:
    if r.get("skipped"):
        return [r["op"], r["shape"], r["dtype"], r["impl"], "skipped: " + r["skipped"]]
    acc = r.get("accuracy") or {}
    check = "-" if not acc else ("ok" if acc.get("ok") else "FAIL")
    rel = (
        f"{acc['rel_l2']:.1e}"
        if "rel_l2" in acc
        else ("-" if not acc else str(acc.get("mismatches", acc.get("error", ""))))
    )
    return [
        r["op"],
        r["shape"],
        r["dtype"],
        r["impl"],
        f"{r['median_us']:.2f}",
        f"{r['p10_us']:.2f}",
        f"{r['p90_us']:.2f}",
        f"{r['gbps']:.1f}",
        f"{r['tflops']:.2f}" if r["tflops"] else "-",
        f"{r['pct_copy']:.0f}" if r.get("pct_copy") is not None else "-",
        rel,
        check,
    ]


def header() -> str:
    return "".join(name.ljust(w) if i < 4 else name.rjust(w) for i, (name, w) in enumerate(COLUMNS))


def row(r: dict) -> str:
    cells = _fmt(r)
    if r.get("skipped"):
        return "".join(c.ljust(w) for c, (_, w) in zip(cells[:4], COLUMNS)) + cells[4]
    return "".join(c.ljust(w) if i < 4 else c.rjust(w) for i, (c, (_, w)) in enumerate(zip(cells, COLUMNS)))


class Progress:
    """A one-line progress bar on stderr (only when it is a terminal, or when forced)."""

    def __init__(self, total: int, enabled: bool | None = None):
        self.total, self.done = total, 0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled

    def step(self, what: str):
        self.done += 1
        if self.enabled:
            width = 30
            filled = width * self.done // max(self.total, 1)
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {what[:60]:<60}")
            sys.stderr.flush()

    def close(self):
        if self.enabled:
            sys.stderr.write("\r" + " " * 110 + "\r")
            sys.stderr.flush()


def write_json(path: str, meta: dict, results: list[dict]):
    with open(path, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)


CSV_COLUMNS = (
    "op",
    "set",
    "shape",
    "dtype",
    "impl",
    "median_us",
    "p10_us",
    "p90_us",
    "gbps",
    "tflops",
    "pct_copy",
    "best_peer",
    "ratio_to_best_peer",
    "check",
    "device_name",
    "torch",
)
# times to 0.01 us (the event clock ticks every 32 ns); rates to 4 significant digits (a small all-reduce's too)
_CSV_FORMATS = {
    "median_us": "{:.2f}",
    "p10_us": "{:.2f}",
    "p90_us": "{:.2f}",
    "gbps": "{:.4g}",
    "tflops": "{:.4g}",
    "pct_copy": "{:.1f}",
    "ratio_to_best_peer": "{:.3f}",
}


def _csv_key(row: dict) -> tuple:
    return (row["op"], row["shape"], row["dtype"], row["impl"])


def _csv_cell(name: str, value) -> str:
    if value is None or value == "":
        return ""
    fmt = _CSV_FORMATS.get(name)
    return fmt.format(float(value)) if fmt else str(value)


def _union(a: str, b: str) -> str:
    """Shape-set names joined by "+", each once, in the order met."""
    return "+".join(dict.fromkeys(x for x in (a.split("+") + b.split("+")) if x))


def write_csv(path: str, results: list[dict], meta: dict | None = None) -> int:
    """Merges the timed rows of `results` into the CSV at `path`, rewritten in place: one row per (op, shape,
    dtype, impl); a row of this run replaces the file's row of the same key, the file's other rows stay, new
    keys follow in the order they came. A shape that two shape sets share keeps both names ("prefill+large"),
    the file's and this run's.
    Then every (op, shape, dtype)'s `best_peer` and `ratio_to_best_peer` are taken again over the merged rows:
    a row's median over the fastest peer's (peers: every implementation but infini), so the infini row's
    ratio is under 1 where ours is faster. Skipped rows are not written. Returns the number of rows."""
    meta = meta or {}
    rows: dict[tuple, dict] = {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                rows[_csv_key(r)] = r
    fresh: dict[tuple, dict] = {}
    for r in results:
        if r.get("skipped") or r.get("median_us") is None:
            continue
        acc = r.get("accuracy") or {}
        new = {
            "op": r["op"],
            "set": r.get("set", ""),
            "shape": r["shape"],
            "dtype": r["dtype"],
            "impl": r["impl"],
            "median_us": r["median_us"],
            "p10_us": r.get("p10_us"),
            "p90_us": r.get("p90_us"),
            "gbps": r.get("gbps"),
            "tflops": r.get("tflops") or None,
            "pct_copy": r.get("pct_copy"),
            "check": "" if not acc else ("ok" if acc.get("ok") else "FAIL"),
            "device_name": r.get("device_name", meta.get("device_name", "")),
            "torch": r.get("torch", meta.get("torch", "")),
        }
        key = _csv_key(new)
        if key in fresh:
            new["set"] = _union(fresh[key]["set"], new["set"])
        fresh[key] = new
    for key, new in fresh.items():
        new["set"] = _union(rows[key].get("set") or "", new["set"]) if key in rows else new["set"]
        rows[key] = {c: _csv_cell(c, new.get(c)) for c in CSV_COLUMNS}
    groups: dict[tuple, list[dict]] = {}
    for r in rows.values():
        groups.setdefault(_csv_key(r)[:3], []).append(r)
    for rs in groups.values():
        peers = [r for r in rs if r["impl"] != "infini" and r["median_us"]]
        best = min(peers, key=lambda r: float(r["median_us"]), default=None)
        for r in rs:
            r["best_peer"] = best["impl"] if best else ""
            r["ratio_to_best_peer"] = (
                _csv_cell("ratio_to_best_peer", float(r["median_us"]) / float(best["median_us"]))
                if best and r["median_us"]
                else ""
            )
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows.values():
            w.writerow({c: r.get(c, "") for c in CSV_COLUMNS})
    return len(rows)


def write_plots(folder: str, results: list[dict]) -> list[str]:
    """One PNG per (op, dtype): GB/s (TFLOP/s for matrix products and attention) against shape, one line
    per implementation. Returns the files written; raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    groups: dict[tuple, list[dict]] = {}
    for r in results:
        if not r.get("skipped"):
            groups.setdefault((r["op"], r["dtype"]), []).append(r)
    for (op, dtype), rs in sorted(groups.items()):
        compute = op in ("gemm", "linear", "paged_attention", "attention", "paged_attention_prefill")
        metric, unit = ("tflops", "TFLOP/s") if compute else ("gbps", "GB/s")
        shapes = list(dict.fromkeys(r["shape"] for r in rs))
        fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(shapes)), 4))
        for impl in dict.fromkeys(r["impl"] for r in rs):
            pts = [(shapes.index(r["shape"]), r[metric]) for r in rs if r["impl"] == impl]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=impl)
        ax.set_xticks(range(len(shapes)))
        ax.set_xticklabels(shapes, rotation=20, ha="right", fontsize=8)
        values = [r[metric] for r in rs if r[metric] > 0]
        if values and max(values) / min(values) > 50:
            ax.set_yscale("log")
        ax.set_ylabel(unit)
        ax.set_title(f"{op} ({dtype}) on {rs[0]['device']}")
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = os.path.join(folder, f"{op}_{dtype}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written
