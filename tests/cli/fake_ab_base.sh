#!/bin/sh
# perfgate ab's tests: a build whose benchmark writes triad_10_repetitions.json every run.
exec "$(dirname "$0")/fake_gbench.sh" --fake-json=triad_10_repetitions.json "$@"
