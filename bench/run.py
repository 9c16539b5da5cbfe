#!/usr/bin/env python3
"""`make bench`: one report, printed and written to bench/results/latest.md.

1. Build speed against Hugo on the shared synthetic corpus (1,000, 4,000 and
   10,000 posts; BENCH_SIZES overrides), output on tmpfs, the two generators
   alternated A B A B, each figure the median of BENCH_RUNS (5) runs after one
   warm-up, with min and max; plus the I/O floor (shared/bench/floor.py).
2. This site: cold and warm `site build`, and edit-to-served latency under
   `site serve` (bench/reload-latency.mjs): from a save until the server answers
   with the new content, for a content, a style and an island edit, and for one
   post of the 10,000-post corpus.
3. Page weight of every route, measured in Chromium (bench/weight.mjs).
4. The search: index size, first search's bytes and time to results (bench/search.mjs).

Only the Python standard library is used; wall time is monotonic, CPU time and
peak RSS come from the kernel's accounting of each finished process (wait4).
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT.parent / "shared" / "bench"
SITE = ROOT / "target" / "release" / "site"
SIZES = [int(n) for n in os.environ.get("BENCH_SIZES", "1000,4000,10000").split(",")]
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SHM = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
WORK = SHM / "site-bench"


def measure(cmd, cwd=None):
    """Runs `cmd` once; returns wall seconds, CPU seconds and peak RSS in MiB."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        sys.exit(f"bench: {' '.join(map(str, cmd))} failed:\n{stderr}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024}


def summary(samples, key):
    values = [s[key] for s in samples]
    return statistics.median(values), min(values), max(values)


def fresh_out(name):
    out = WORK / "out" / name
    shutil.rmtree(out, ignore_errors=True)
    return out


def ensure_hugo():
    if shutil.which("hugo"):
        return
    if os.geteuid() != 0:
        sys.exit("bench: hugo is missing; install Debian's hugo package (apt-get install hugo)")
    subprocess.run(["apt-get", "-o", "DPkg::Lock::Timeout=300", "update", "-qq"], check=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "-o", "DPkg::Lock::Timeout=300", "install", "-y", "-qq", "hugo"], check=True, env=env)


def prepare(n):
    """The corpus, Hugo's site around it, and ours around the same files."""
    corpus = WORK / f"corpus-{n}"
    if not (corpus / "posts").is_dir():
        shutil.rmtree(corpus, ignore_errors=True)
        subprocess.run([sys.executable, KIT / "gen-corpus.py", str(n), corpus], check=True, stdout=subprocess.DEVNULL)
    hugo_site = WORK / f"hugo-{n}"
    if not hugo_site.is_dir():
        subprocess.run(["bash", KIT / "hugo-site.sh", corpus, hugo_site], check=True)
    our_site = WORK / f"site-{n}"
    if not our_site.is_dir():
        shutil.copytree(ROOT / "bench" / "site", our_site)
        for post in (corpus / "posts").iterdir():
            shutil.copy(post, our_site / "content" / "pages" / "posts" / post.name)
    return corpus, hugo_site, our_site


def build_speed():
    ensure_hugo()
    rows = []
    for n in SIZES:
        corpus, hugo_site, our_site = prepare(n)
        commands = {
            "hugo": lambda out: ["hugo", "--quiet", "-s", hugo_site, "-d", out],
            "site": lambda out: [SITE, "build", "--root", our_site, "--out", out],
            "floor": lambda out: [sys.executable, KIT / "floor.py", corpus, out],
        }
        samples = {k: [] for k in commands}
        for run in range(RUNS + 1):  # the first round is the warm-up
            for name, cmd in commands.items():
                out = fresh_out(name)
                result = measure(cmd(out))
                shutil.rmtree(out, ignore_errors=True)
                if run > 0:
                    samples[name].append(result)
        ratios = [s["wall"] / h["wall"] for s, h in zip(samples["site"], samples["hugo"])]
        rss_ratio = statistics.median(s["rss"] for s in samples["site"]) / statistics.median(h["rss"] for h in samples["hugo"])
        rows.append((n, samples, statistics.median(ratios), rss_ratio))
    return rows


def this_site():
    out = fresh_out("this-site")
    cold, warm = [], []
    for run in range(RUNS + 1):
        for cache in ("bundle", "cache", "compressed", "images", "social", "maps"):
            shutil.rmtree(ROOT / ".site" / cache, ignore_errors=True)
        result = measure([SITE, "build", "--root", ROOT, "--out", out])
        if run > 0:
            cold.append(result)
    for run in range(RUNS + 1):
        result = measure([SITE, "build", "--root", ROOT, "--out", out])
        if run > 0:
            warm.append(result)
    shutil.rmtree(out, ignore_errors=True)
    return cold, warm


def node(script, *args):
    env = dict(os.environ, SITE_BIN=str(SITE))
    done = subprocess.run(["node", ROOT / "bench" / script, *map(str, args)], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt(median, lo, hi, unit, digits=2):
    return f"{median:.{digits}f} {unit} ({lo:.{digits}f}–{hi:.{digits}f})"


def kb(n):
    return f"{n / 1024:.1f}"


def report():
    lines = ["# Benchmarks", ""]
    lines.append(f"Machine: {os.cpu_count()} cores; output on {SHM}; each figure is the median of {RUNS} runs after one warm-up, (min–max).")
    lines.append("Reproduce with `make bench` (BENCH_SIZES and BENCH_RUNS override the defaults).")
    lines += ["", "## 1. Build speed against Hugo", ""]
    lines.append("| posts | generator | wall | CPU | peak RSS | wall ÷ Hugo | RSS ÷ Hugo |")
    lines.append("|---:|---|---:|---:|---:|---:|---:|")
    for n, samples, ratio, rss_ratio in build_speed():
        for name in ("hugo", "site", "floor"):
            s = samples[name]
            extra = (f"**{ratio:.2f}×**", f"**{rss_ratio:.2f}×**") if name == "site" else ("", "")
            lines.append(
                f"| {n:,} | {name} | {fmt(*summary(s, 'wall'), 's')} | {fmt(*summary(s, 'cpu'), 's')} | "
                f"{fmt(*summary(s, 'rss'), 'MiB', 0)} | {extra[0]} | {extra[1]} |"
            )
    cold, warm = this_site()
    _, _, corpus_site = prepare(10000)
    latency = node("reload-latency.mjs", 20, "--corpus", corpus_site)
    lines += ["", "## 2. This site", ""]
    lines.append("| measure | figure |")
    lines.append("|---|---:|")
    lines.append(f"| cold build (no caches: esbuild, Node render, social cards, the map) | {fmt(*summary(cold, 'wall'), 's')} |")
    lines.append(f"| warm build (caches present, nothing changed) | {fmt(*[v * 1000 for v in summary(warm, 'wall')], 'ms', 0)} |")
    for key, what in (("content", "a content edit"), ("style", "a style edit"), ("island", "an island edit"), ("corpus", "one post of the 10,000-post corpus")):
        c = latency[key]
        lines.append(f"| save to served, {what} ({c['n']} edits) | p50 {c['p50']} ms, p95 {c['p95']} ms ({c['min']}–{c['max']}) |")
    weights = node("weight.mjs")
    lines += ["", "## 3. Page weight (KiB raw / gzip / brotli; HTML, CSS, JavaScript and the font are what loads before the page is interactive, images what a visitor who reads to the end downloads at that width)", ""]
    lines.append("| route | HTML | CSS | JavaScript | font | images at 375 px | images at 1280 px | search before it is opened | requests |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in weights:
        phone, desk = w["375"], w["1280"]
        cells = [" / ".join(kb(phone[kind][enc]) for enc in ("raw", "gzip", "br")) for kind in ("html", "css", "js")]
        cells.append(kb(phone["font"]["raw"]))
        cells += [" / ".join(kb(x["images"][enc]) for enc in ("raw", "br")) for x in (phone, desk)]
        cells.append(kb(phone["search"]["raw"] + desk["search"]["raw"]))
        lines.append(f"| {w['route']} | {' | '.join(cells)} | {phone['requests']} |")
    search = node("search.mjs", RUNS)
    first, typed = search["firstSearchBytes"], search["keystrokeToResultsMs"]
    lines += ["", f"## 4. Search (Chromium against `site serve`, the query \"{search['query']}\" typed into a fresh page, {RUNS} runs)", ""]
    lines.append("| measure | value |")
    lines.append("|---|---:|")
    lines.append(f"| index as built (`pagefind/`) | {search['index']['files']} files, {kb(search['index']['bytes'])} KiB |")
    lines.append(f"| loaded by the first search (dialog, Pagefind, WebAssembly, index; as transferred) | {kb(first['median'])} KiB ({kb(first['min'])}–{kb(first['max'])}) |")
    lines.append(f"| first keystroke to results shown | {typed['median']:.0f} ms ({typed['min']:.0f}–{typed['max']:.0f}) |")
    return "\n".join(lines) + "\n"


def main():
    if not SITE.is_file():
        sys.exit("bench: build the generator first (cargo build --release)")
    WORK.mkdir(parents=True, exist_ok=True)
    text = report()
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "latest.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
