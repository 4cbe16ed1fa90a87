#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# scripts/check_layers.py on a small tree: it passes a downward include and fails, naming the
# file, line and layers, on an upward one, on a private header named without its folder, on a
# public header no layer holds, on a header beside the umbrella and on a name public in two
# layers; and a drawing of the layers (docs/architecture.md) that puts a layer above one that
# includes it, or leaves one out.
# usage: check_layers_catches.sh PYTHON CHECK_LAYERS_PY WORK_DIR
set -eu
python=$1 check=$2 work=$3
rm -rf "$work" && mkdir -p "$work/perfgate/model/include/perfgate" "$work/perfgate/report" \
  "$work/perfgate/util" "$work/perfgate/gate/include/perfgate" "$work/perfgate/include/perfgate" \
  "$work/microbench"
printf '#pragma once\n' > "$work/perfgate/util/strings.hpp"
printf '#pragma once\n' > "$work/perfgate/report/table.hpp"
printf '#include "util/strings.hpp"\n#include <perfgate/profile.hpp>\n#include <vector>\n' \
  > "$work/perfgate/model/profile.cpp"
printf '#pragma once\n' > "$work/perfgate/model/include/perfgate/profile.hpp"
printf '#pragma once\n' > "$work/perfgate/gate/include/perfgate/gate.hpp"
printf '#pragma once\n#include <perfgate/profile.hpp>\n#include <perfgate/gate.hpp>\n' \
  > "$work/perfgate/include/perfgate/perfgate.hpp"

expect() { # expect CODE REGEX
  rc=0
  "$python" "$check" "$work" > "$work/out" 2>&1 || rc=$?
  if [ "$rc" -ne "$1" ] || ! grep -Eq "$2" "$work/out"; then
    echo "expected exit $1 and /$2/, got exit $rc:" >&2
    cat "$work/out" >&2
    exit 1
  fi
}
expect 0 'every include goes down the layers'

printf '#include "util/strings.hpp"\n#include "report/table.hpp"\n' > "$work/perfgate/model/profile.cpp"
expect 1 "perfgate/model/profile.cpp:2: layer 'model' includes 'report/table.hpp' of layer 'report'; model may include only util"

printf '#include "strings.hpp"\n' > "$work/perfgate/model/profile.cpp"
expect 1 'perfgate/model/profile.cpp:1: "strings.hpp": include private headers by their path from perfgate/'

printf '#include <perfgate/plot.hpp>\n' > "$work/perfgate/model/profile.cpp"
expect 1 'perfgate/model/profile.cpp:1: <perfgate/plot.hpp> is no public header'

printf '#include <perfgate/gate.hpp>\n' > "$work/perfgate/model/profile.cpp"
expect 1 "layer 'model' includes 'perfgate/gate.hpp' of layer 'gate'"
printf '#include "util/strings.hpp"\n' > "$work/perfgate/model/profile.cpp"
printf '#pragma once\n' > "$work/perfgate/include/perfgate/plot.hpp"
expect 1 'perfgate/include/perfgate/plot.hpp: perfgate/include/perfgate/ holds the umbrella header alone'
rm "$work/perfgate/include/perfgate/plot.hpp"
printf '#pragma once\n' > "$work/perfgate/gate/include/perfgate/profile.hpp"
expect 1 'perfgate/model/include/perfgate/profile.hpp: <perfgate/profile.hpp> is public in two layers \(gate and model\)'
rm "$work/perfgate/gate/include/perfgate/profile.hpp"
# docs/architecture.md's drawing: every layer once, each above every layer it includes.
printf '#include "util/strings.hpp"\n' > "$work/perfgate/model/profile.cpp"
mkdir -p "$work/docs"
draw() { # draw LAYER...: a drawing of these layers, top to bottom
  { echo '# Architecture'; echo '```'
    for layer in "$@"; do printf ' %s/   what it does\n   |\n' "$layer"; done
    echo '```'; } > "$work/docs/architecture.md"
}
draw cli include decide history collectors importers gate report microbench model util
expect 0 'every include goes down the layers'
draw cli include decide history collectors importers model gate report microbench util
expect 1 "the drawing puts 'model' above 'gate', which includes it"
draw cli include decide history collectors importers gate report model util
expect 1 'the drawing lacks the layer\(s\) microbench'
echo "check_layers: catches every upward include it was shown"
