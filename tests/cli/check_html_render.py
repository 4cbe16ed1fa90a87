#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The report pages as people see them: headless Chromium (Debian's `chromium`) renders each
HTML report, and the history page (`perfgate history changes`) of a history of those kernels,
1400 px wide, and a probe script counted into the page checks that nothing scrolls
sideways, no table row is empty or taller than 300 px (a kernel name wrapping over a screen),
no kernel is named in more than 120 characters (headings, "kernel" columns), and every chart
is drawn. The PR comment
(Markdown) of the same reports names no kernel in more than 120 characters outside the
collapsed full names. Screenshots are left in WORK_DIR for a reviewer.

usage: check_html_render.py PERFGATE SOURCE_DIR WORK_DIR
exit 0 when every page passes, 1 when one fails, 77 without chromium.
"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

WIDTH = 1400
PROBE = """<script>
(function () {
  var d = document.documentElement, rows = [].slice.call(document.querySelectorAll('tr'));
  var svgs = [].slice.call(document.querySelectorAll('svg'));
  var longest = 0;  // the longest kernel name: a heading, or a cell of a "kernel" column
  [].slice.call(document.querySelectorAll('h3, h2[title]')).forEach(function (e) {
    longest = Math.max(longest, e.innerText.trim().length);
  });
  [].slice.call(document.querySelectorAll('table')).forEach(function (t) {
    var heads = [].slice.call(t.querySelectorAll('tr:first-child th'));
    var col = heads.findIndex(function (h) { return h.innerText.trim() === 'kernel'; });
    if (col < 0) { return; }
    [].slice.call(t.querySelectorAll('tr')).forEach(function (r) {
      var c = r.children[col];
      if (c && c.tagName === 'TD') { longest = Math.max(longest, c.innerText.trim().length); }
    });
  });
  var p = document.createElement('pre');
  p.id = 'perfgate-probe';
  p.textContent = 'PROBE ' + JSON.stringify({
    scroll_width: d.scrollWidth, client_width: d.clientWidth,
    tall_rows: rows.filter(function (r) { return r.getBoundingClientRect().height > 300; }).length,
    empty_rows: rows.filter(function (r) { return r.innerText.trim() === ''; }).length,
    charts: svgs.length,
    blank_charts: svgs.filter(function (s) {
      var b = s.getBoundingClientRect();
      return b.width < 100 || b.height < 100 || s.querySelectorAll('path, line, circle, rect').length < 5;
    }).length,
    longest_name: longest});
  document.body.appendChild(p);
})();
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def render(browser, html, work):
    probed = work / (html.stem + ".probe.html")
    probed.write_text(html.read_text().replace("</body>", PROBE + "</body>"))
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--window-size={WIDTH},1000"]
    dom = subprocess.run(flags + ["--dump-dom", probed.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    m = re.search(r"PROBE (\{.*?\})", dom)
    if not m:
        sys.exit(f"{html}: chromium gave no probe result")
    subprocess.run(flags + [f"--screenshot={work / (html.stem + '.png')}", html.as_uri()],
                   capture_output=True, timeout=120)
    return json.loads(m.group(1))


def history_pages(perfgate, work, names):
    """A 30-commit history of `names` (the captured kernels' full names), the first with a 6%
    step at commit 17: its change-point page and PR comment."""
    lines = []
    for c in range(30):
        commit = f"{c:02d}" + "ab12cd34ef" * 4
        for i, name in enumerate(names):
            level = 1.06 if i == 0 and c >= 17 else 1.0
            e = [0.5 / level / (1 + 0.004 * ((c * 7 + r * 3 + i) % 5)) for r in range(3)]
            lines.append(json.dumps({"schema": "perfgate-history/1", "commit": commit,
                                     "date": f"2026-10-{c + 1:02d}", "kernel": name,
                                     "device": "h200", "efficiency": e[0], "runs": [e]}))
    history = work / "history.jsonl"
    history.write_text("\n".join(lines) + "\n")
    html, md = work / "history.html", work / "history.md"
    for fmt, out in (("html", html), ("md", md)):
        subprocess.run([perfgate, "history", "changes", "--history", str(history), "--format", fmt,
                        "-o", str(out)], check=True, stderr=subprocess.DEVNULL)
    return html, md


def main(perfgate, source, work):
    browser = chromium()
    if browser is None:
        print("check_html_render: skipped: no chromium (Debian: apt-get install chromium)")
        return 77
    source, work = Path(source), Path(work)
    work.mkdir(parents=True, exist_ok=True)
    cases = {
        "torch_h200": ["predict", "--profile", str(source / "tests/data/h200/torch_ncu_raw_h200_noclk.csv"),
                       "--device", "h200", "--device", "h100-sxm"],
        "ops3_h100_to_h200": ["predict", "--profile", str(source / "tests/data/h100/ops3_ncu_raw_h100_noclk.csv"),
                              "--measured-on", "h100-sxm", "--device", "h200"],
        "gated_golden": None,  # the writers' golden report: verdicts of every kind
        "history": "history",  # perfgate history changes of the first case's kernels
    }
    failed = []
    for name, args in cases.items():
        if args == "history":
            torch = json.loads((work / "torch_h200.json").read_text())
            longest_first = sorted((k["name"] for k in torch["kernels"]), key=len, reverse=True)
            html, md = history_pages(perfgate, work, longest_first[:4])
        else:
            if args is None:
                report = source / "tests/data/golden/writers/report.json"
            else:
                report = work / (name + ".json")
                subprocess.run([perfgate, *args, "--format", "json", "-o", str(report)],
                               check=True, stderr=subprocess.DEVNULL)
            html = work / (name + ".html")
            md = work / (name + ".md")
            for fmt, out in (("html", html), ("md", md)):
                subprocess.run([perfgate, "report", str(report), "--format", fmt, "-o", str(out)],
                               check=True, stderr=subprocess.DEVNULL)
        got = render(browser, html, work)
        problems = []
        if got["scroll_width"] > got["client_width"]:
            problems.append(f"scrolls sideways: {got['scroll_width']} px wide in {got['client_width']}")
        if got["tall_rows"]:
            problems.append(f"{got['tall_rows']} table rows taller than 300 px")
        if got["empty_rows"]:
            problems.append(f"{got['empty_rows']} empty table rows")
        if got["charts"] == 0 or got["blank_charts"]:
            problems.append(f"{got['blank_charts']} of {got['charts']} charts not drawn")
        if got["longest_name"] > 120:
            problems.append(f"a kernel named in {got['longest_name']} characters")
        visible = re.sub(r"<details><summary>full name</summary>.*?</details>", "",
                         md.read_text(), flags=re.S)
        longest = max((len(n) for n in re.findall(r"`([^`\n]*)`", visible)), default=0)
        if longest > 120:
            problems.append(f"the Markdown names something in {longest} characters")
        print(f"{name}: {got}, Markdown's longest name {longest}: "
              f"{'; '.join(problems) if problems else 'ok'} (screenshot {work / (name + '.png')})")
        if problems:
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
