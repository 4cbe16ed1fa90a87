#!/bin/sh
# perfgate ab's tests: a build whose runs alternate between the base's times and 1.3x them
# (fake_ab_flaky.state in the working directory counts its runs), so no number of rounds
# settles its verdict.
state=fake_ab_flaky.state
n=$(cat "$state" 2>/dev/null || echo 0)
echo $((n + 1)) >"$state"
json=triad_10_repetitions.json
[ $((n % 2)) -eq 1 ] && json=triad_10_repetitions_1.3x.json
exec "$(dirname "$0")/fake_gbench.sh" --fake-json=$json "$@"
