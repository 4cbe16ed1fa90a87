# SPDX-License-Identifier: Apache-2.0
#[=======================================================================[.rst:
PerfGate
--------

.. versionadded:: 0.1

Gate the performance of GPU and CPU kernels in CTest against a predicted bound.

.. code-block:: cmake

  find_package(PerfGate REQUIRED)   # or add_subdirectory(perfgate)
  include(PerfGate)

``add_perf_prediction()`` adds a CTest test that runs a program, measures its kernels
(black-box counters on a GPU, declared work in a Google Benchmark binary, or a recorded
profile), predicts each kernel's upper bound on performance for the local device and every
configured device, and fails when a kernel runs too far below its bound on the local device
or changes between memory-bound and compute-bound. ``ctest -L perf`` runs them all.

The local device is measured once per build tree by a calibration test
(``perfgate.calibrate.cpu`` or ``perfgate.calibrate.gpu``), a CTest fixture every perf test
requires. Its result, ``<build>/perfgate/local-<backend>.json``, is reused until the
``perfgate`` binary or the machine (host name, processor) changes.

.. command:: add_perf_prediction

  .. code-block:: cmake

    add_perf_prediction(<target>
                        [NAME <test-name>]
                        [ARGS <arg>...]
                        [COLLECTOR auto|cupti|ncu|rocprof|gbench|nvbench|profile]
                        [LOCAL_DEVICE cpu|gpu]
                        [PROFILE <file>]
                        [DEVICES <id-or-file>...]
                        [KERNELS <regex>]
                        [MIN_EFFICIENCY <0..1>]
                        [MAX_EFFICIENCY <x>]
                        [EXPECT_BOUND memory|compute|latency]
                        [PIPELINE_IDG <k.idg.json>...]
                        [PIPELINE_LATENCIES <lat.json>]
                        [BASELINE <report.json>]
                        [MAX_EFFICIENCY_DROP <0..0.99>]
                        [CONFIDENCE <0.5..0.9999>]
                        [RUN_SPREAD <0..1>]
                        [REPETITIONS <n>]
                        [TARGET_CI <fraction>]
                        [TIME_BUDGET <seconds>]
                        [CONFIRM_BUDGET <seconds>]
                        [AB_BUDGET <seconds>]
                        [AB_BASE_BINARY <path>]
                        [KEEP_WARM_UP] [FLUSH_L2] [NO_COUNTER_CACHE]
                        [HULL_SPECIES "<class>"]
                        [HULL_F <ops>]
                        [HULL_TOLERANCE <x>]
                        [HULL_ELEMENT_BYTES <bytes>]
                        [REPORT_DIR <dir>]
                        [LABELS <label>...]
                        [TIMEOUT <seconds>])

  ``<target>`` is an executable target defined before the call.

  The options are:

  ``NAME <test-name>``
    Name of the test. Default ``perf.<target>``.

  ``ARGS <arg>...``
    Arguments passed to the program, each one unsplit (spaces and quotes are kept).

  ``COLLECTOR auto|cupti|ncu|rocprof|gbench|nvbench|profile``
    How kernels are measured. ``gbench``: a Google Benchmark binary whose benchmarks declare
    their work in the counters ``perfgate_fp32_flops``, ``perfgate_fp64_flops``,
    ``perfgate_int_ops`` and ``perfgate_bytes`` (per iteration; optionally
    ``perfgate_write_bytes``, the written part of the bytes, and ``perfgate_working_set_bytes``:
    docs/model.md, "The roof"). The CPU is the local device,
    unless the target has ``.cu``/``.hip`` sources or links the CUDA or HIP runtime: then its
    benchmarks are taken to time GPU kernels with manual time and the GPU is the local device.
    ``cupti``: NVIDIA GPU counters through perfgate's CUPTI injection library (the program runs
    twice: kernel times, then counters under kernel replay; docs/nvidia.md); ``ncu``: the same
    through Nsight Compute; ``rocprof``: AMD GPU counters; these use the GPU as the local device
    and are skipped (exit 77) where there is none or counters are not permitted. ``nvbench``:
    an nvbench program, its states the kernels (their names "<benchmark> [<state>]"): nvbench's
    cold times and samples from its ``--jsonbin`` output, and, with CUPTI, the counters of each
    state's own kernels from one ``--profile`` run of that state (docs/nvbench.md); skipped
    without an NVIDIA GPU. ``profile``: the
    recorded ``PROFILE`` (the program still runs once and must succeed); the first of
    ``DEVICES`` is the local device and nothing is calibrated. ``auto`` (default): ``nvbench``
    when the target links nvbench, ``gbench`` when it links Google Benchmark, else
    ``perfgate run --collector auto`` decides from the built program and the machine
    (``cupti`` for a CUDA program or where only an NVIDIA GPU is, ``rocprof`` for a HIP one or
    where only ROCm is) and, where nothing decides, skips saying so and naming the choices.

  ``LOCAL_DEVICE cpu|gpu``
    With ``gbench``: which device the benchmarks time, when the guess above is wrong (a target
    that reaches CUDA or HIP only through a library of its own, say). An error with other
    collectors: theirs is fixed.

  ``PROFILE <file>``
    The recorded profile for ``COLLECTOR profile`` (nvprof CSV, Nsight Compute CSV, Google
    Benchmark JSON or ``perfgate-profile/1``). Required with it, an error otherwise.

  ``DEVICES <id-or-file>...``
    Devices to predict for besides the local one: built-in ids (``perfgate devices``) or
    ``perfgate-device/1`` files. Default: the variable ``PERFGATE_DEVICES``.

  ``KERNELS <regex>``
    Only kernels (benchmarks) whose full name matches this ECMAScript regular expression.

  ``MIN_EFFICIENCY <0..1>``
    Fail when bound time / measured time falls below this on the local device. Default: not
    checked (the efficiency is still reported). Kernels under 10 us per invocation are
    latency-bound by duration: the verdict says so, and a low efficiency only warns.

  ``MAX_EFFICIENCY <x>``
    Fail when the kernel beats its bound by more than this ratio: the peaks or the declared
    work are wrong. Default ``1.10``.

  ``EXPECT_BOUND memory|compute|latency``
    Fail when the kernel's class on the local device differs. Within 10% of the ridge point
    the difference is a warning. ``latency``: until the pipeline model has the kernel's
    instruction graph and the device's latencies (docs/pipeline.md), a kernel under 10 us per
    invocation (latency-bound by duration) meets it and any other warns that the class is
    unavailable; it never fails on a guess.

  ``PIPELINE_IDG <k.idg.json>...`` and ``PIPELINE_LATENCIES <lat.json>``
    The pipeline model in the gate (docs/pipeline.md): each instruction dependence graph
    (``perfgate pipeline idg``) is simulated at its kernel's launch on the local device with
    these latencies (``perfgate calibrate --latencies``). Where the model finds the kernel
    latency-bound, that is its class: ``EXPECT_BOUND latency`` is met or fails by it, and
    ``MIN_EFFICIENCY`` applies against the model's time instead of the roof. Needs a collector
    that records launches (cupti, ncu, or a recorded profile with them). The two go together.

  ``BASELINE <report.json>``
    A report (or ``perfgate baseline accept`` output) to compare with: a class flip on any
    device, or an efficiency drop beyond ``MAX_EFFICIENCY_DROP``, fails.

  ``MAX_EFFICIENCY_DROP <0..0.99>``
    Allowed relative efficiency drop against ``BASELINE``. Default ``0.10``. When the baseline
    and the run both hold at least 5 samples of a kernel (repetitions, launches), the verdict is
    statistical (docs/statistics.md): SLOWER beyond the drop with ``CONFIDENCE`` (default
    ``0.95``) fails, AMBIGUOUS (the samples allow a drop on either side of it) warns and says how
    many samples would settle it, SAME, FASTER and SLOWER within the drop pass.

  ``RUN_SPREAD <0..1>``
    How far runs of unchanged code spread on the runner that gates: the log standard deviation
    of their medians (``0.05``: about 5%), as ``scripts/bench-drift.py`` measures it on recorded
    A/A runs. A comparison with a ``BASELINE`` of one run carries it (both runs' unknown run
    effects), one with several runs no less than theirs. Default ``0``: the repetitions' own
    spread alone, which on a drifting runner is sure of differences that are the runs'
    (docs/statistics.md).

  ``REPETITIONS <n>``
    Google Benchmark repetitions per benchmark (``--benchmark_repetitions``). Default ``5``.
    The time the program measures a benchmark for (its ``--benchmark_min_time`` among ``ARGS``,
    else Google Benchmark's 0.5 s) is split among them, so that the samples the gate needs cost
    what one plain run of the program costs; a benchmark that sets its own ``MinTime()`` or a
    ``--benchmark_min_time=<n>x`` keeps what it says.

  ``TARGET_CI <fraction>`` and ``TIME_BUDGET <seconds>``
    Google Benchmark: adaptive repetitions. Rounds of ``REPETITIONS`` (at least 6) are run, only
    of the benchmarks not yet settled, until each median's 95% interval lies within
    +-``TARGET_CI`` of it (``0.01``: 1%), or the next round would end after ``TIME_BUDGET``
    seconds (default ``60``). Progress is printed after each round.

  ``CONFIRM_BUDGET <seconds>``
    With ``BASELINE``: while a kernel's verdict is AMBIGUOUS, perfgate runs the program again in
    fresh processes (only the unsettled benchmarks of a Google Benchmark binary) and judges all
    runs by the floor rule (docs/statistics.md), starting no run that would end after this many
    seconds or after ``TIMEOUT``. Default ``60``; ``0`` turns confirmation off. A line of
    progress is printed after each run.

  ``AB_BUDGET <seconds>``
    With a ``BASELINE`` that keeps its build (``perfgate baseline accept --keep-build``): a
    kernel slower than the stored runs, or undecided, is decided by that build and this target
    run alternately in one session (``perfgate ab``'s rule; no confirmation runs then), for
    this many seconds at most. Default ``300``; ``0`` confirms against the stored runs instead,
    where a confirmed slowdown only warns.

  ``AB_BASE_BINARY <path>``
    Compare two builds instead of gating one: the test runs ``perfgate ab`` with this
    executable (the base build, e.g. the pull request's merge base built in another tree) and
    the target (the head), alternately in one session, and fails when the head's efficiency
    dropped past ``MAX_EFFICIENCY_DROP`` over every run of each (docs/statistics.md). ``KERNELS``,
    ``DEVICES``, ``COLLECTOR``, ``REPETITIONS``, ``CONFIDENCE``, ``KEEP_WARM_UP`` and ``ARGS``
    apply to both builds; ``TIMEOUT`` bounds each run and the session's rounds. The criteria of
    one build (``MIN_EFFICIENCY``, ``EXPECT_BOUND``, ``BASELINE``, hull, pipeline,
    ``TARGET_CI``, ``CONFIRM_BUDGET``, ``FLUSH_L2``, a recorded ``PROFILE``) are refused with it.

  With the CMake variable ``PERFGATE_AB_BASE_DIR`` set to the build tree of a base build of the
  same project (``cmake -DPERFGATE_AB_BASE_DIR=../base-build ...``), every test of the project
  compares the two builds this way, the base binary at the same path in that tree; the criteria
  of one build are left out, recorded profiles stay as they are.

  ``HULL_SPECIES "<class>"`` and ``HULL_F <ops>``
    Hold each kernel to the boat hull band of its algorithm class on the local device
    (``perfgate hull --list-classes``; docs/hull.md), e.g. ``HULL_SPECIES "16777216|element ^
    16777216|element -> 16777216|element" HULL_F 2`` for a triad. Faster than the band's lower
    end (beyond ``MAX_EFFICIENCY``) fails: the class, ``HULL_F`` or the device data is wrong.
    Slower than its upper end by more than ``HULL_TOLERANCE`` (default ``0.25``) fails like an
    efficiency drop. ``HULL_ELEMENT_BYTES`` is the size of one element (default ``4``; ``8``
    for double). ``HULL_SPECIES`` and ``HULL_F`` go together.

  ``KEEP_WARM_UP``
    Profilers (cupti, ncu, rocprof): keep each kernel's first launch. By default a kernel
    launched more than once is judged on its other launches: the first one pays for module
    loading, cold instruction caches and TLBs, and clocks ramping up.

  ``FLUSH_L2``
    The cupti collector flushes the GPU's L2 before every launch of its timing run, so each
    kernel is timed with a cold L2 (as Nsight Compute, the ncu collector, does by default).

  ``NO_COUNTER_CACHE``
    The nvbench collector (``COLLECTOR nvbench`` or ``auto``) keeps each state's counter run in
    ``${CMAKE_BINARY_DIR}/perfgate-counter-cache`` and reuses it while the program's files are
    byte-identical (counters repeat run after run, times do not: only the times are measured
    again; docs/nvbench.md). This keyword counts every state every run instead: for a program
    whose kernels depend on what its files do not hold (a data file it reads, a shared library
    rebuilt without relinking it).

  ``REPORT_DIR <dir>``
    Where the ``perfgate-report/1`` JSON goes, named ``<test-name>.json``. Default
    ``${CMAKE_CURRENT_BINARY_DIR}/perfgate-reports``. It is attached to failing tests
    (``ATTACHED_FILES_ON_FAIL``) for CDash.

  ``LABELS <label>...``
    Labels added to ``perf``.

  ``TIMEOUT <seconds>``
    How long the program may run, all its runs together (``perfgate run --timeout``): a hung
    program is killed with its process group and the test fails (exit 3) naming it. The CTest
    ``TIMEOUT`` of the test is 30 s longer, so that perfgate gets to say what hung. Default 600.

  Every test gets ``SKIP_RETURN_CODE 77`` (no suitable device, no counter permission). Perf
  tests on the CPU share the ``RESOURCE_LOCK`` ``perfgate_cpu``, so they never overlap, also
  under ``ctest -j``. Perf tests on a GPU request CTest ``RESOURCE_GROUPS`` ``gpus:1``: with a
  resource specification file listing the machine's GPUs (``perfgate resources -o
  resources.json``; ``ctest -L perf -j8 --resource-spec-file resources.json``, or the cache
  variable ``PERFGATE_RESOURCE_SPEC_FILE``) they run in parallel, one per GPU, each pinned to its
  GPU (``CUDA_VISIBLE_DEVICES``, ``ROCR_VISIBLE_DEVICES``) and gated against that GPU's own
  calibration, ``<build>/perfgate/gpu-<id>.json``, measured by the first test given the GPU
  (their CTest ``TIMEOUT`` has 600 s more for it). Without one, the module makes CTest use
  ``<build>/CMakeFiles/perfgate/one-gpu.json``, one GPU called ``default``, unless
  ``CTEST_RESOURCE_SPEC_FILE`` is set already: GPU perf tests then run one at a time on the
  default GPU. A specification of
  your own must list ``gpus``, or CTest refuses to run GPU perf tests for want of resources.

  .. note::
    A keyword this function does not know, a keyword without its value, or a malformed value
    stops configuration with a message that names it. So does a value of ``ARGS``, ``DEVICES``
    or ``LABELS`` in capitals that is a keyword or within two letters of one
    (``LABELS nightly MIN_EFFICENCY 0.99``): it would otherwise be taken as one more value and
    the keyword's setting silently dropped.

  Example:

  .. code-block:: cmake

    add_executable(stream_bench stream_bench.cpp)
    target_link_libraries(stream_bench PRIVATE benchmark::benchmark)
    add_perf_prediction(stream_bench
      COLLECTOR gbench
      KERNELS "^BM_triad$"
      MIN_EFFICIENCY 0.5
      EXPECT_BOUND memory
      DEVICES h100-sxm mi300x)
#]=======================================================================]

include_guard(GLOBAL)

block(SCOPE_FOR POLICIES)
cmake_policy(VERSION 3.25)

set(_PERFGATE_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")

# GPU perf tests request CTest's resource "gpus" (_perfgate_device_resource). Without a
# specification CTest would ignore that and run them all at once on one GPU: one GPU called
# "default" keeps them one at a time, unless the project or the user names a specification.
set(PERFGATE_RESOURCE_SPEC_FILE "" CACHE FILEPATH
    "CTest resource specification listing this machine's GPUs (perfgate resources -o FILE)")
if(PERFGATE_RESOURCE_SPEC_FILE)
  set(CTEST_RESOURCE_SPEC_FILE "${PERFGATE_RESOURCE_SPEC_FILE}")
elseif(NOT DEFINED CTEST_RESOURCE_SPEC_FILE)
  # Beside CMake's own files, not in <build>/perfgate: removing the calibrations there must not
  # leave CTest without its specification (it would then run no test at all).
  set(CTEST_RESOURCE_SPEC_FILE "${CMAKE_BINARY_DIR}/CMakeFiles/perfgate/one-gpu.json")
  file(CONFIGURE OUTPUT "${CTEST_RESOURCE_SPEC_FILE}" CONTENT
       [[{"version": {"major": 1, "minor": 0}, "local": [{"gpus": [{"id": "default", "slots": 1}]}]}
]])
endif()

function(_perfgate_fail name)
  string(JOIN "" message ${ARGN})
  message(FATAL_ERROR "add_perf_prediction(${name}): ${message}")
endfunction()

function(_perfgate_check_number name keyword value low high)
  if(NOT value MATCHES "^([0-9]+\\.?[0-9]*|\\.[0-9]+)$")
    _perfgate_fail(${name} "${keyword} expects a number, got \"${value}\"")
  endif()
  if(NOT low STREQUAL "" AND value LESS low)
    _perfgate_fail(${name} "${keyword} must be at least ${low}, got ${value}")
  endif()
  if(NOT high STREQUAL "" AND value GREATER high)
    _perfgate_fail(${name} "${keyword} must be at most ${high}, got ${value}")
  endif()
endfunction()

# A keyword that only acts against a BASELINE, given without one: said, and ignored.
function(_perfgate_warn_without_baseline name keyword baseline)
  if(NOT baseline)
    message(AUTHOR_WARNING "add_perf_prediction(${name}): ${keyword} without BASELINE has no "
                           "effect; it was ignored")
  endif()
endfunction()

# The edit distance of two words, for telling a misspelt keyword from a value.
function(_perfgate_edit_distance a b out_var)
  string(LENGTH "${a}" la)
  string(LENGTH "${b}" lb)
  set(previous "")
  foreach(j RANGE ${lb})
    list(APPEND previous ${j})
  endforeach()
  foreach(i RANGE 1 ${la})
    math(EXPR ai "${i} - 1")
    string(SUBSTRING "${a}" ${ai} 1 ca)
    set(current ${i})
    foreach(j RANGE 1 ${lb})
      math(EXPR bj "${j} - 1")
      string(SUBSTRING "${b}" ${bj} 1 cb)
      list(GET previous ${j} up)
      list(GET previous ${bj} diagonal)
      list(GET current ${bj} left)
      if(NOT ca STREQUAL cb)
        math(EXPR diagonal "${diagonal} + 1")
      endif()
      math(EXPR up "${up} + 1")
      math(EXPR left "${left} + 1")
      set(best ${diagonal})
      if(up LESS best)
        set(best ${up})
      endif()
      if(left LESS best)
        set(best ${left})
      endif()
      list(APPEND current ${best})
    endforeach()
    set(previous ${current})
  endforeach()
  list(GET previous ${lb} distance)
  set(${out_var} ${distance} PARENT_SCOPE)
endfunction()

# A multi-value keyword takes everything up to the next keyword, so a misspelt keyword after it
# (`LABELS nightly MIN_EFFICENCY 0.99`) would silently become a value and disable the check.
# A value in capitals that is a keyword of this function or within two edits of one is an error.
function(_perfgate_check_multi_values name keyword keywords)
  foreach(value IN LISTS ARGN)
    if(NOT value MATCHES "^[A-Z][A-Z0-9_]+$")
      continue()
    endif()
    foreach(known IN LISTS keywords)
      string(LENGTH "${value}" lv)
      string(LENGTH "${known}" lk)
      math(EXPR gap "${lv} - ${lk}")
      if(gap GREATER 2 OR gap LESS -2)
        continue()
      endif()
      _perfgate_edit_distance("${value}" "${known}" distance)
      if(distance LESS_EQUAL 2)
        if(distance EQUAL 0)
          set(what "the keyword ${known} twice, or a keyword given as a value")
        else()
          set(what "a misspelt keyword (did you mean ${known}?)")
        endif()
        _perfgate_fail(${name} "${keyword} value \"${value}\" looks like ${what}; it would be "
                       "taken as one of the ${keyword} values and its setting ignored")
      endif()
    endforeach()
  endforeach()
endfunction()

# What keeps tests on one device apart: the CPU is one lock; GPUs are CTest resources, one
# test per GPU at a time (the GPU CTest gives a test is pinned by `perfgate run`).
function(_perfgate_device_resource test resource)
  if(resource STREQUAL "perfgate_gpu")
    set_tests_properties("${test}" PROPERTIES RESOURCE_GROUPS "gpus:1")
  else()
    set_tests_properties("${test}" PROPERTIES RESOURCE_LOCK "${resource}")
  endif()
endfunction()

# The calibration test of one backend (cpu or gpu), created once per build tree.
function(_perfgate_calibration backend perfgate out_var)
  set(file "${CMAKE_BINARY_DIR}/perfgate/local-${backend}.json")
  get_property(done GLOBAL PROPERTY _PERFGATE_CALIBRATION_${backend})
  if(NOT done)
    set_property(GLOBAL PROPERTY _PERFGATE_CALIBRATION_${backend} TRUE)
    if(backend STREQUAL "cpu")
      set(calibrate_backend cpu)
    else()
      set(calibrate_backend auto-gpu)
    endif()
    add_test(NAME perfgate.calibrate.${backend}
      COMMAND "${CMAKE_COMMAND}" "-DPERFGATE=${perfgate}" "-DBACKEND=${calibrate_backend}"
              "-DOUTPUT=${file}" -P "${_PERFGATE_MODULE_DIR}/PerfGateCalibrate.cmake")
    set_tests_properties(perfgate.calibrate.${backend} PROPERTIES
      FIXTURES_SETUP perfgate_calibration_${backend}
      LABELS "perf;perfgate-calibration"
      TIMEOUT 600)
    _perfgate_device_resource(perfgate.calibrate.${backend} perfgate_${backend})
  endif()
  set(${out_var} "${file}" PARENT_SCOPE)
endfunction()

# add_perf_prediction's steps are functions. Each takes `args`, the prefix of the caller's
# cmake_parse_arguments results (it reads ${args}_<KEYWORD>, nothing else of the caller's), and
# `name`, what its errors call the test; each returns what it finds in the variables the caller
# names (as CMake's GoogleTest module does), and sets nothing else. In order:
#   _perfgate_check_keywords   unknown keywords, values missing, misspelt ones, the target
#   _perfgate_check_collection COLLECTOR and the keywords that need it      -> collector
#   _perfgate_check_criteria   efficiency, class, change, the hull's band
#   _perfgate_check_budgets    confidence, repetitions, budgets              -> timeout
#   _perfgate_local_device     the collector auto resolves to and the device calibrated for it
#                              -> collector, backend, local file, fixtures, resource
#   _perfgate_run_command /    the test's command (perfgate run, or perfgate ab against a base
#   _perfgate_ab_command       build)                                        -> command
#   _perfgate_register         the test, its timeout, labels, device lock and fixture

# Appends `perfgate run`'s OPTION with the keyword's value to the list `list_var`, when the
# keyword was given.
function(_perfgate_forward list_var args keyword option)
  if(DEFINED ${args}_${keyword})
    set(${list_var} ${${list_var}} ${option} "${${args}_${keyword}}" PARENT_SCOPE)
  endif()
endfunction()

function(_perfgate_check_keywords name args target keywords)
  if(${args}_UNPARSED_ARGUMENTS)
    string(REPLACE ";" " " all_keywords "${keywords}")
    _perfgate_fail(${name} "unknown keyword or stray value: ${${args}_UNPARSED_ARGUMENTS} "
                   "(keywords: ${all_keywords})")
  endif()
  if(${args}_KEYWORDS_MISSING_VALUES)
    _perfgate_fail(${name} "keyword without a value: ${${args}_KEYWORDS_MISSING_VALUES}")
  endif()
  foreach(keyword IN LISTS ARGN) # the multi-value keywords
    _perfgate_check_multi_values(${name} ${keyword} "${keywords}" ${${args}_${keyword}})
  endforeach()
  if(NOT TARGET "${target}")
    _perfgate_fail(${name} "\"${target}\" is not a target defined before this call")
  endif()
  get_target_property(type "${target}" TYPE)
  if(NOT type STREQUAL "EXECUTABLE")
    _perfgate_fail(${name} "\"${target}\" is a ${type}, expected an executable target")
  endif()
endfunction()

# The keywords that choose how kernels are measured, and which need each other; `out_collector`
# gets COLLECTOR (auto when not given).
function(_perfgate_check_collection name args out_collector)
  set(collector auto)
  if(DEFINED ${args}_COLLECTOR)
    set(collector "${${args}_COLLECTOR}")
  endif()
  if(NOT collector MATCHES "^(auto|cupti|ncu|rocprof|gbench|nvbench|profile)$")
    _perfgate_fail(${name} "COLLECTOR must be one of auto, cupti, ncu, rocprof, gbench, "
                   "nvbench, profile; got \"${collector}\"")
  endif()
  if(collector STREQUAL "profile" AND NOT ${args}_PROFILE)
    _perfgate_fail(${name} "COLLECTOR profile needs PROFILE <file>")
  endif()
  if(DEFINED ${args}_LOCAL_DEVICE)
    if(NOT ${args}_LOCAL_DEVICE MATCHES "^(cpu|gpu)$")
      _perfgate_fail(${name} "LOCAL_DEVICE must be cpu or gpu, got \"${${args}_LOCAL_DEVICE}\"")
    endif()
    if(NOT collector MATCHES "^(gbench|auto)$")
      _perfgate_fail(${name} "LOCAL_DEVICE is for Google Benchmark binaries (COLLECTOR gbench); "
                     "the ${collector} collector's device is fixed")
    endif()
  endif()
  if(DEFINED ${args}_PIPELINE_IDG AND NOT DEFINED ${args}_PIPELINE_LATENCIES)
    _perfgate_fail(${name} "PIPELINE_IDG needs PIPELINE_LATENCIES, the local device's latencies")
  endif()
  if(DEFINED ${args}_PIPELINE_LATENCIES AND NOT DEFINED ${args}_PIPELINE_IDG)
    _perfgate_fail(${name} "PIPELINE_LATENCIES needs PIPELINE_IDG, the kernels' graphs")
  endif()
  if(${args}_PROFILE AND NOT collector STREQUAL "profile")
    _perfgate_fail(${name} "PROFILE is only used with COLLECTOR profile")
  endif()
  set(${out_collector} "${collector}" PARENT_SCOPE)
endfunction()

# The criteria a kernel is judged by: efficiency, class, change, the hull's band.
function(_perfgate_check_criteria name args)
  if(DEFINED ${args}_EXPECT_BOUND AND NOT ${args}_EXPECT_BOUND MATCHES "^(memory|compute|latency)$")
    _perfgate_fail(${name} "EXPECT_BOUND must be memory, compute or latency, got "
                   "\"${${args}_EXPECT_BOUND}\"")
  endif()
  if(DEFINED ${args}_MIN_EFFICIENCY)
    _perfgate_check_number(${name} MIN_EFFICIENCY "${${args}_MIN_EFFICIENCY}" 0 1)
  endif()
  if(DEFINED ${args}_MAX_EFFICIENCY)
    _perfgate_check_number(${name} MAX_EFFICIENCY "${${args}_MAX_EFFICIENCY}" "" "")
  endif()
  if(DEFINED ${args}_MAX_EFFICIENCY_DROP)
    _perfgate_check_number(${name} MAX_EFFICIENCY_DROP "${${args}_MAX_EFFICIENCY_DROP}" 0 0.99)
    _perfgate_warn_without_baseline(${name} MAX_EFFICIENCY_DROP "${${args}_BASELINE}")
  endif()
  if(DEFINED ${args}_HULL_SPECIES AND NOT DEFINED ${args}_HULL_F)
    _perfgate_fail(${name} "HULL_SPECIES needs HULL_F, the class's operations per operator "
                   "application")
  endif()
  if(DEFINED ${args}_HULL_F AND NOT DEFINED ${args}_HULL_SPECIES)
    _perfgate_fail(${name} "HULL_F needs HULL_SPECIES, the algorithm class it belongs to")
  endif()
  if(DEFINED ${args}_HULL_F)
    _perfgate_check_number(${name} HULL_F "${${args}_HULL_F}" 0 "")
  endif()
  if(DEFINED ${args}_HULL_TOLERANCE)
    if(NOT DEFINED ${args}_HULL_SPECIES)
      _perfgate_fail(${name} "HULL_TOLERANCE needs HULL_SPECIES and HULL_F")
    endif()
    _perfgate_check_number(${name} HULL_TOLERANCE "${${args}_HULL_TOLERANCE}" 0 10)
  endif()
  if(DEFINED ${args}_HULL_ELEMENT_BYTES)
    if(NOT DEFINED ${args}_HULL_SPECIES)
      _perfgate_fail(${name} "HULL_ELEMENT_BYTES needs HULL_SPECIES and HULL_F")
    endif()
    _perfgate_check_number(${name} HULL_ELEMENT_BYTES "${${args}_HULL_ELEMENT_BYTES}" 1 "")
  endif()
endfunction()

# How long and how often it measures: confidence, repetitions, budgets; `out_timeout` gets the
# test's TIMEOUT (600 s when not given).
function(_perfgate_check_budgets name args out_timeout)
  if(DEFINED ${args}_CONFIDENCE)
    _perfgate_check_number(${name} CONFIDENCE "${${args}_CONFIDENCE}" 0.5 0.9999)
    _perfgate_warn_without_baseline(${name} CONFIDENCE "${${args}_BASELINE}")
  endif()
  if(DEFINED ${args}_RUN_SPREAD)
    _perfgate_check_number(${name} RUN_SPREAD "${${args}_RUN_SPREAD}" 0 1)
    _perfgate_warn_without_baseline(${name} RUN_SPREAD "${${args}_BASELINE}")
  endif()
  if(DEFINED ${args}_REPETITIONS)
    if(NOT ${args}_REPETITIONS MATCHES "^[1-9][0-9]*$" OR ${args}_REPETITIONS GREATER 1000)
      _perfgate_fail(${name} "REPETITIONS expects a whole number from 1 to 1000, got "
                     "\"${${args}_REPETITIONS}\"")
    endif()
  endif()
  if(DEFINED ${args}_TARGET_CI)
    _perfgate_check_number(${name} TARGET_CI "${${args}_TARGET_CI}" 0.0001 1)
  endif()
  if(DEFINED ${args}_TIME_BUDGET)
    if(NOT DEFINED ${args}_TARGET_CI)
      _perfgate_fail(${name} "TIME_BUDGET needs TARGET_CI: it bounds the adaptive repetitions")
    endif()
    _perfgate_check_number(${name} TIME_BUDGET "${${args}_TIME_BUDGET}" 0 86400)
  endif()
  foreach(budget IN ITEMS CONFIRM_BUDGET AB_BUDGET)
    if(DEFINED ${args}_${budget})
      _perfgate_check_number(${name} ${budget} "${${args}_${budget}}" 0 86400)
    endif()
  endforeach()
  set(timeout 600)
  if(DEFINED ${args}_TIMEOUT)
    _perfgate_check_number(${name} TIMEOUT "${${args}_TIMEOUT}" 1 "")
    set(timeout "${${args}_TIMEOUT}")
  endif()
  set(${out_timeout} "${timeout}" PARENT_SCOPE)
endfunction()

# The local device: the CPU for Google Benchmark binaries, else the GPU. For auto, a target
# that links nvbench is an nvbench program, one that links Google Benchmark a gbench one.
# A recorded profile has no local device to calibrate: the first of `devices` is it. Sets the
# variables named by `out`'s five names: the resolved collector, the backend (cpu, gpu or
# empty), the local device file (empty for a profile), the calibration fixture (or empty) and
# the resource that keeps tests on one device apart.
function(_perfgate_local_device name args target collector perfgate devices out)
  list(GET out 0 out_collector)
  list(GET out 1 out_backend)
  list(GET out 2 out_local_file)
  list(GET out 3 out_fixtures)
  list(GET out 4 out_resource)
  if(collector STREQUAL "auto")
    get_target_property(libs "${target}" LINK_LIBRARIES)
    if(libs MATCHES "nvbench")
      set(collector nvbench)
    elseif(libs MATCHES "benchmark")
      set(collector gbench)
    endif()
  endif()
  set(backend "")
  set(fixtures "")
  set(local_file "")
  if(collector STREQUAL "profile")
    if(NOT devices)
      _perfgate_fail(${name} "COLLECTOR profile needs DEVICES (the first is the local one)")
    endif()
    set(resource perfgate_cpu)
  else()
    set(backend gpu)
    if(DEFINED ${args}_LOCAL_DEVICE)
      set(backend ${${args}_LOCAL_DEVICE})
    elseif(collector STREQUAL "gbench")
      # A Google Benchmark binary with GPU code times its kernels with manual time: its local
      # device is the GPU. Plain C++ benchmarks run on the CPU.
      get_target_property(sources "${target}" SOURCES)
      get_target_property(libs "${target}" LINK_LIBRARIES)
      if(NOT sources MATCHES "\\.(cu|hip)(;|$)" AND NOT libs MATCHES "cudart|CUDA::|hip::")
        set(backend cpu)
      endif()
    endif()
    _perfgate_calibration(${backend} "${perfgate}" local_file)
    set(fixtures perfgate_calibration_${backend})
    set(resource perfgate_${backend})
  endif()
  set(${out_collector} "${collector}" PARENT_SCOPE)
  set(${out_backend} "${backend}" PARENT_SCOPE)
  set(${out_local_file} "${local_file}" PARENT_SCOPE)
  set(${out_fixtures} "${fixtures}" PARENT_SCOPE)
  set(${out_resource} "${resource}" PARENT_SCOPE)
endfunction()

# `perfgate run` of the target, the single build's gate, into `out_command`. `where` holds the
# collector, the backend, the local device file, the report and the timeout, in that order.
function(_perfgate_run_command out_command args target perfgate where devices)
  list(GET where 0 collector)
  list(GET where 1 backend)
  list(GET where 2 local_file)
  list(GET where 3 report)
  list(GET where 4 timeout)
  set(command "${perfgate}" run --collector "${collector}")
  if(collector STREQUAL "profile")
    list(APPEND command --profile "${${args}_PROFILE}")
  else()
    list(APPEND command --device "${local_file}")
    if(backend STREQUAL "gpu")
      list(APPEND command --gpu-calibrations "${CMAKE_BINARY_DIR}/perfgate")
    endif()
  endif()
  foreach(device IN LISTS devices)
    list(APPEND command --device "${device}")
  endforeach()
  _perfgate_forward(command ${args} KERNELS --kernels)
  _perfgate_forward(command ${args} MIN_EFFICIENCY --min-efficiency)
  _perfgate_forward(command ${args} MAX_EFFICIENCY --max-efficiency)
  _perfgate_forward(command ${args} EXPECT_BOUND --expect-bound)
  foreach(idg IN LISTS ${args}_PIPELINE_IDG)
    list(APPEND command --idg "${idg}")
  endforeach()
  _perfgate_forward(command ${args} PIPELINE_LATENCIES --latencies)
  if(${args}_BASELINE)
    list(APPEND command --baseline "${${args}_BASELINE}")
    _perfgate_forward(command ${args} MAX_EFFICIENCY_DROP --max-efficiency-drop)
    _perfgate_forward(command ${args} CONFIDENCE --confidence)
    _perfgate_forward(command ${args} RUN_SPREAD --run-spread)
  endif()
  _perfgate_forward(command ${args} REPETITIONS --repetitions)
  _perfgate_forward(command ${args} CONFIRM_BUDGET --confirm-budget)
  _perfgate_forward(command ${args} AB_BUDGET --ab-budget)
  if(${args}_KEEP_WARM_UP)
    list(APPEND command --keep-warm-up)
  endif()
  if(${args}_FLUSH_L2)
    list(APPEND command --flush-l2)
  endif()
  if(collector MATCHES "^(nvbench|auto)$" AND NOT ${args}_NO_COUNTER_CACHE)
    list(APPEND command --counter-cache "${CMAKE_BINARY_DIR}/perfgate-counter-cache")
  endif()
  if(DEFINED ${args}_TARGET_CI)
    list(APPEND command --target-ci "${${args}_TARGET_CI}")
    _perfgate_forward(command ${args} TIME_BUDGET --time-budget)
  endif()
  if(DEFINED ${args}_HULL_SPECIES)
    list(APPEND command --hull-species "${${args}_HULL_SPECIES}" --hull-f "${${args}_HULL_F}")
    _perfgate_forward(command ${args} HULL_TOLERANCE --hull-tolerance)
    _perfgate_forward(command ${args} HULL_ELEMENT_BYTES --hull-element-bytes)
  endif()
  list(APPEND command --report "${report}" --timeout "${timeout}" -- "$<TARGET_FILE:${target}>"
       ${${args}_ARGS})
  set(${out_command} "${command}" PARENT_SCOPE)
endfunction()

# `perfgate ab` of `base_binary` against the target, into `out_command`, instead of
# `perfgate run`; what only a single build's gate can judge is refused. `strict`: the keyword
# AB_BASE_BINARY was given, so a single build's criterion beside it is an error; for
# PERFGATE_AB_BASE_DIR (every test of the project) those criteria are left out instead. `where`
# as for _perfgate_run_command.
function(_perfgate_ab_command out_command name args strict base_binary target perfgate where
         devices)
  list(GET where 0 collector)
  list(GET where 2 local_file)
  list(GET where 3 report)
  list(GET where 4 timeout)
  foreach(single MIN_EFFICIENCY MAX_EFFICIENCY EXPECT_BOUND BASELINE TARGET_CI TIME_BUDGET
                 CONFIRM_BUDGET AB_BUDGET HULL_SPECIES PIPELINE_IDG PIPELINE_LATENCIES RUN_SPREAD)
    if(DEFINED ${args}_${single} AND strict)
      _perfgate_fail(${name} "AB_BASE_BINARY compares two builds: ${single} is a criterion of "
                     "one build's gate (perfgate run), not of perfgate ab")
    endif()
  endforeach()
  if(strict AND (${args}_FLUSH_L2 OR collector STREQUAL "profile"))
    _perfgate_fail(${name} "AB_BASE_BINARY runs both builds: FLUSH_L2 and a recorded PROFILE "
                   "are for perfgate run")
  endif()
  set(command "${perfgate}" ab --base "${base_binary}" --head "$<TARGET_FILE:${target}>"
      --collector "${collector}" --device "${local_file}")
  foreach(device IN LISTS devices)
    list(APPEND command --device "${device}")
  endforeach()
  _perfgate_forward(command ${args} KERNELS --kernels)
  _perfgate_forward(command ${args} MAX_EFFICIENCY_DROP --max-efficiency-drop)
  _perfgate_forward(command ${args} CONFIDENCE --confidence)
  _perfgate_forward(command ${args} REPETITIONS --repetitions)
  if(${args}_KEEP_WARM_UP)
    list(APPEND command --keep-warm-up)
  endif()
  list(APPEND command --report "${report}" --timeout "${timeout}" --time-budget "${timeout}"
       -- ${${args}_ARGS})
  set(${out_command} "${command}" PARENT_SCOPE)
endfunction()

# The test `test_name` running `command` (a list). CTest's own timeout comes later than
# `timeout`, so that perfgate kills a hung program itself and says which one hung (exit 3)
# instead of a bare CTest "Timeout": the time to stop the program, then to predict and write
# the report for many kernels.
function(_perfgate_register test_name command timeout report resource fixtures labels)
  string(REGEX MATCH "^[0-9]*" whole "${timeout}")
  set(extra 30)
  if(NOT timeout STREQUAL whole)
    set(extra 31) # a fraction: rounded up
  endif()
  if(resource STREQUAL "perfgate_gpu")
    # The first test CTest gives a GPU calibrates it (the calibration fixture's own limit).
    math(EXPR extra "${extra} + 600")
  endif()
  math(EXPR ctest_timeout "0${whole} + ${extra}")

  add_test(NAME "${test_name}" COMMAND ${command})
  set_tests_properties("${test_name}" PROPERTIES
    LABELS "perf;${labels}"
    SKIP_RETURN_CODE 77
    TIMEOUT "${ctest_timeout}"
    ATTACHED_FILES_ON_FAIL "${report}")
  _perfgate_device_resource("${test_name}" ${resource})
  if(fixtures)
    set_tests_properties("${test_name}" PROPERTIES FIXTURES_REQUIRED "${fixtures}")
  endif()
endfunction()

function(add_perf_prediction target)
  set(options KEEP_WARM_UP FLUSH_L2 NO_COUNTER_CACHE)
  set(one_value NAME COLLECTOR PROFILE KERNELS MIN_EFFICIENCY MAX_EFFICIENCY EXPECT_BOUND
      BASELINE MAX_EFFICIENCY_DROP REPORT_DIR TIMEOUT HULL_SPECIES HULL_F HULL_TOLERANCE
      HULL_ELEMENT_BYTES CONFIDENCE RUN_SPREAD REPETITIONS TARGET_CI TIME_BUDGET CONFIRM_BUDGET AB_BUDGET AB_BASE_BINARY
      LOCAL_DEVICE PIPELINE_LATENCIES)
  set(multi_value ARGS DEVICES LABELS PIPELINE_IDG)
  cmake_parse_arguments(PARSE_ARGV 1 arg "${options}" "${one_value}" "${multi_value}")
  set(name "${target}")
  if(arg_NAME)
    set(name "${arg_NAME}")
  endif()

  _perfgate_check_keywords(${name} arg "${target}" "${options};${one_value};${multi_value}"
                           ${multi_value})
  _perfgate_check_collection(${name} arg collector)
  _perfgate_check_criteria(${name} arg)
  _perfgate_check_budgets(${name} arg timeout)
  if(NOT TARGET perfgate::cli)
    _perfgate_fail(${name} "the perfgate::cli target is missing: call find_package(PerfGate) "
                   "or add_subdirectory(perfgate) first")
  endif()
  set(perfgate "$<TARGET_FILE:perfgate::cli>")
  set(test_name "perf.${target}")
  if(arg_NAME)
    set(test_name "${arg_NAME}")
  endif()
  set(devices ${PERFGATE_DEVICES})
  if(DEFINED arg_DEVICES)
    set(devices ${arg_DEVICES})
  endif()
  set(report_dir "${CMAKE_CURRENT_BINARY_DIR}/perfgate-reports")
  if(arg_REPORT_DIR)
    set(report_dir "${arg_REPORT_DIR}")
  endif()
  set(report "${report_dir}/${test_name}.json")

  _perfgate_local_device(${name} arg "${target}" "${collector}" "${perfgate}" "${devices}"
                         "collector;backend;local_file;fixtures;resource")
  set(where "${collector};${backend};${local_file};${report};${timeout}")
  if(DEFINED arg_AB_BASE_BINARY)
    _perfgate_ab_command(command ${name} arg TRUE "${arg_AB_BASE_BINARY}" "${target}"
                         "${perfgate}" "${where}" "${devices}")
  elseif(PERFGATE_AB_BASE_DIR AND NOT collector STREQUAL "profile")
    # The whole project compared with a base build of it (the pull-request loop's A/B mode):
    # the base binary sits at the same place in the base's build tree.
    _perfgate_ab_command(command ${name} arg FALSE
      "${PERFGATE_AB_BASE_DIR}/$<PATH:RELATIVE_PATH,$<TARGET_FILE:${target}>,${CMAKE_BINARY_DIR}>"
      "${target}" "${perfgate}" "${where}" "${devices}")
  else()
    _perfgate_run_command(command arg "${target}" "${perfgate}" "${where}" "${devices}")
  endif()
  _perfgate_register("${test_name}" "${command}" "${timeout}" "${report}" "${resource}"
                     "${fixtures}" "${arg_LABELS}")
endfunction()

endblock()
