#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a perfgate source includes a layer it may not see (docs/architecture.md), or when
docs/architecture.md's drawing of the layers disagrees with ALLOWED below.

Private headers are included by their path from perfgate/ ("model/duration_json.hpp"), public
ones as <perfgate/NAME.hpp>. A public header belongs to the layer whose folder holds it
(perfgate/model/include/perfgate/device.hpp is model's); perfgate/include/perfgate/ holds the
umbrella header alone, drawn as the layer "include" above every layer it includes.

usage: check_layers.py [SOURCE_ROOT]   (default: the repository this script lives in)
"""
import pathlib
import re
import sys

# What each layer may include besides itself. Data flows cli -> collectors -> importers -> model
# -> gate -> report; the report document (defined in report/) carries the model's predictions
# and the gate's verdicts, so report/ sits above model/ and below gate/. decide/ runs the
# program again where a verdict is undecided (through the collectors) and has the gate judge
# the samples: above both, below cli.
ALLOWED = {
    "util": set(),
    "model": {"util"},
    "report": {"model", "util"},
    "gate": {"report", "model", "util"},
    "history": {"gate", "report", "model", "util"},
    "importers": {"model", "util"},
    "collectors": {"importers", "model", "util"},
    "decide": {"collectors", "importers", "gate", "report", "model", "util"},
    "cli": {"decide", "collectors", "importers", "history", "gate", "report", "model", "util",
            "microbench"},
    "microbench": {"model", "util"},
    # perfgate/include/perfgate/perfgate.hpp, the umbrella: every layer that has public headers
    "include": {"importers", "gate", "report", "model", "util"},
}
UMBRELLA = "perfgate.hpp"

MICROBENCH_HEADERS = {"cpu_microbench.hpp", "cpu_kernels.hpp", "cpu_topology.hpp", "gpu_compat.hpp",
                      "gpu_measure.hpp", "gpu_compute.hpp", "gpu_caches.hpp", "gpu_memory.hpp",
                      "gpu_checksum.hpp", "gpu_clocks.hpp", "permuted_index.hpp",
                      "gpu_uncoalesced.hpp", "gpu_bus.hpp"}

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)
SOURCES = (".cpp", ".hpp", ".cu", ".hip")


def layer_of(path: pathlib.Path, lib: pathlib.Path):
    return path.relative_to(lib).parts[0]


def public_headers(lib: pathlib.Path):
    """Each public header's layer (the folder above its include/perfgate/), and the errors of
    their placement: a name public twice, a header beside the umbrella."""
    layers, errors = {}, []
    for header in sorted(lib.glob("*/include/perfgate/*.hpp")) + sorted(
            lib.glob("include/perfgate/*.hpp")):
        layer = layer_of(header, lib)
        where = header.relative_to(lib.parent)
        if layer == "include" and header.name != UMBRELLA:
            errors.append(f"{where}: perfgate/include/perfgate/ holds the umbrella header alone; "
                          "a public header goes in its layer's include/perfgate/")
        elif header.name in layers:
            errors.append(f"{where}: <perfgate/{header.name}> is public in two layers "
                          f"({layers[header.name]} and {layer})")
        else:
            layers[header.name] = layer
    return layers, errors


DRAWN_LAYER = re.compile(r"^ ([a-z]+)/ ", re.M)


def check_drawing(doc: pathlib.Path) -> list:
    """The layer drawing (the first code block of docs/architecture.md, a layer a line starting
    ` name/ `) against ALLOWED: every layer drawn once, and each above every layer it may include,
    so that no arrow of the drawing goes up."""
    text = doc.read_text(encoding="utf-8")
    block = re.search(r"```\n(.*?)```", text, re.S)
    if block is None:
        return [f"{doc.name}: no layer drawing (a code block) found"]
    drawn = DRAWN_LAYER.findall(block.group(1))
    errors = []
    missing = sorted(set(ALLOWED) - set(drawn))
    if missing:
        errors.append(f"{doc.name}: the drawing lacks the layer(s) {', '.join(missing)}")
    for name in sorted(set(drawn)):
        if name not in ALLOWED:
            errors.append(f"{doc.name}: the drawing shows '{name}', which is no layer")
        elif drawn.count(name) > 1:
            errors.append(f"{doc.name}: the drawing shows '{name}' {drawn.count(name)} times")
    for i, name in enumerate(drawn):
        for lower in sorted(ALLOWED.get(name, ())):
            if lower in drawn[:i]:
                errors.append(f"{doc.name}: the drawing puts '{lower}' above '{name}', which "
                              f"includes it: every layer must be drawn above those it includes")
    return errors


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent.parent)
    lib = root / "perfgate"
    files = sorted(p for p in lib.rglob("*") if p.suffix in SOURCES)
    files += sorted(p for p in (root / "microbench").rglob("*") if p.suffix in SOURCES)
    public, errors = public_headers(lib)
    for path in files:
        me = "microbench" if path.is_relative_to(root / "microbench") else layer_of(path, lib)
        where = path.relative_to(root)
        if me not in ALLOWED:
            errors.append(f"{where}: '{me}' is no layer; expected one of {', '.join(ALLOWED)}")
            continue
        text = path.read_text(encoding="utf-8")
        for match in INCLUDE.finditer(text):
            bracket, name = match.groups()
            line = text.count("\n", 0, match.start()) + 1
            if bracket == "<":
                if not name.startswith("perfgate/"):
                    continue  # system or third-party header
                target = public.get(name.removeprefix("perfgate/"))
                if target is None:
                    errors.append(f"{where}:{line}: <{name}> is no public header (none in a "
                                  "layer's include/perfgate/)")
                    continue
            elif pathlib.Path(name).name in MICROBENCH_HEADERS or name.endswith(".cu"):
                target = "microbench"
            elif "/" in name:
                if not (lib / name).is_file():
                    errors.append(f'{where}:{line}: "{name}" is not a path from perfgate/')
                    continue
                target = name.split("/")[0]
            elif (path.parent / name).is_file():
                target = me  # beside the including file
            else:
                errors.append(f'{where}:{line}: "{name}": include private headers by their '
                              "path from perfgate/")
                continue
            if target != me and target not in ALLOWED[me]:
                errors.append(f"{where}:{line}: layer '{me}' includes '{name}' of layer "
                              f"'{target}'; {me} may include only "
                              f"{', '.join(sorted(ALLOWED[me])) or 'nothing else'}")
    doc = root / "docs" / "architecture.md"
    if doc.is_file():
        errors += check_drawing(doc)
    for e in errors:
        print(e, file=sys.stderr)
    if errors:
        print(f"check_layers: {len(errors)} include(s) against the layering "
              "(docs/architecture.md)", file=sys.stderr)
        return 1
    print(f"check_layers: {len(files)} files, every include goes down the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
