#!/usr/bin/env bash
# Mutation testing of the trusted kernel and the calculator's automation (slow; not CI).
#
#   pip install -e ".[test,mutation]"
#   scripts/mutation.sh                       # every module in [tool.mutmut] only_mutate
#   scripts/mutation.sh scaledattn.kernel.rules   # one module (a mutmut name glob prefix)
#   scripts/mutation.sh --survivors           # only the survivors again, by name
#
# One worker (the machine is shared); each mutant runs only the fast tests that reach
# the mutated function (see [tool.mutmut] in pyproject.toml). Results accumulate in
# mutants/ (git-ignored): with no argument a second run tests only new or changed
# mutants, but a module name is a glob, and mutmut reruns *every* mutant a glob
# matches. So after adding tests, `scripts/mutation.sh --survivors` reruns just the
# survivors (mutmut first collects the statistics of the new tests, from which it
# selects each mutant's tests). At the end, scripts/mutation_report.py prints the
# figures per module, with the survivors that docs/testing.md explains as
# equivalent counted apart.
set -euo pipefail
cd "$(dirname "$0")/.."
export HYPOTHESIS_PROFILE=ci SCALEDATTN_FRESH_CACHES=1
# A test past 60 s of CPU (ten times the slowest selected test) fails: a mutant that
# loops is stopped at the test it hangs (tests/conftest.py), not after twice the CPU
# time of every test selected for it (mutmut's own limit, ~10 minutes for _canon).
export SCALEDATTN_TEST_CPU_LIMIT=60
if [ "$#" -eq 0 ]; then
    mutmut run --max-children 1
elif [ "$1" = "--survivors" ]; then
    mapfile -t survivors < <(python scripts/mutation_report.py --names)
    if [ "${#survivors[@]}" -gt 0 ]; then
        mutmut run --max-children 1 "${survivors[@]}"
    fi
else
    for module in "$@"; do
        mutmut run --max-children 1 "${module}.*"
    done
fi
python scripts/mutation_report.py
