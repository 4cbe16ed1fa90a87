#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What GitLab does with a job's `artifacts:reports:metrics` and `artifacts:reports:junit`,
written again in Python from GitLab's Ruby source (read, not copied) so that the tests can run
perfgate's reports through it offline. No GitLab code is in this file.

Metrics (GitLab Premium; ee/lib/gitlab/ci/parsers/metrics/generic.rb and
ee/lib/gitlab/ci/reports/metrics/report.rb, read in the nickbrandt/GitLab mirror at commits
6d156bf799cdf9b192eb0dd494d44fa95d70c83b and 27a207fc12e6b95018f374fa9053b12b09569063):
  - each line that is not blank is cut at its first `#` (`line.gsub(/#.*$/, '')`): comment
    lines vanish, and so does the rest of any sample line holding a `#`, in a label value too;
  - what is left is split like a shell command line (Ruby's `Shellwords.shellsplit`): runs of
    ASCII whitespace separate words, '...' and "..." quote (in double quotes a backslash
    escapes $ ` " \\ and a line feed and is kept before anything else), a lone backslash
    escapes the next character; an unmatched quote raises ArgumentError "Unmatched quote";
  - the first word is the metric's key (its labels, unquoted, included), the second its value,
    kept as a string; a line with no second word is skipped;
  - any error while parsing a line fails the whole report ("Metrics parsing failed");
  - the metrics are a hash by key: a later line of the same key replaces the earlier value;
  - a merge request compares the values as strings with the target branch's latest metrics
    report (ee/lib/gitlab/ci/reports/metrics/reports_comparer.rb: a key only on one side is
    new or removed; without a target report every key is new).

JUnit (lib/gitlab/ci/parsers/test/junit.rb at gitlabhq/gitlabhq commit
d23f0cff3ca412a36fcefbb25dc4b36d2941a7de; lib/gitlab/ci/reports/test_case.rb at
94823a9248837114ec84582f83b642ec45fe68ad; lib/gitlab/ci/reports/test_suite.rb at
ba0f3164d55d31dedaebd6ebda6232beb2681c86):
  - the XML is read into a hash; a syntax error fails the report ("JUnit XML parsing failed");
  - test cases are collected from a top-level <testsuites> or <testsuite> and nested
    <testsuite>s, each with the name of the <testsuite> around it;
  - a case is failed with a <failure> (its text, then "System Out:" and its <system-out>),
    error with an <error>, skipped with a <skipped> (its text), else success (nothing shown);
  - it reads the attributes name, classname, file and time (`to_f`: a bad number is 0);
  - a case is keyed by SHA-256 of "<suite name>_<classname>_<name>" within its status: a second
    case of the same key and status replaces the first.
"""
import hashlib
import re
import xml.etree.ElementTree as ET

# Ruby's \s and \S are ASCII-only ([ \t\r\n\f\v]); Python's would also take U+00A0 and others.
_WS = r"[ \t\r\n\f\v]"
_SHELL_WORD = re.compile(
    rf"{_WS}*(?:([^ \t\r\n\f\v\\'\"]+)|'([^']*)'|\"((?:[^\"\\]|\\.)*)\"|(\\.?)|([^ \t\r\n\f\v]))"
    rf"({_WS}|\Z)?", re.S)


class GitLabParseError(Exception):
    """The whole report fails, as GitLab's MetricsParserError or a suite error."""


def shellsplit(line):
    """Ruby's Shellwords.shellsplit (lib/shellwords.rb): raises on an unmatched quote."""
    words, field, at = [], "", 0
    while at < len(line):
        match = _SHELL_WORD.match(line, at)
        if not match or match.end() == at:
            break
        word, single, double, escape, garbage, separator = match.groups()
        if garbage is not None:
            raise GitLabParseError(f"Unmatched quote: {line!r}")
        if word is not None:
            field += word
        elif single is not None:
            field += single
        elif double is not None:
            field += re.sub(r'\\([$`"\\\n])', r"\1", double)
        else:
            field += re.sub(r"\\(.)", r"\1", escape, flags=re.S)
        if separator is not None:
            words.append(field)
            field = ""
        at = match.end()
    return words


def parse_metrics(text):
    """{key: value string} as GitLab's metrics report holds them, and the number of sample
    lines whose key repeated an earlier one (GitLab silently keeps the last)."""
    metrics, repeated = {}, 0
    for line in text.split("\n"):  # Ruby's each_line: line feeds only, not U+2028
        if not line.strip():
            continue
        words = shellsplit(line.split("#", 1)[0])
        if not words or not words[0].strip() or len(words) < 2:
            continue
        repeated += words[0] in metrics
        metrics[words[0]] = words[1]
    return metrics, repeated


def parse_junit(path):
    """[(key, status, suite, classname, name, time)] as GitLab keeps them, and the number of
    cases a later one of the same key and status replaced."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise GitLabParseError(f"JUnit XML parsing failed: {e}") from None
    if root.tag not in ("testsuites", "testsuite"):
        return [], 0
    kept, replaced = {}, 0
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    for suite in suites:
        for case in suite.findall("testcase"):
            status = ("failed" if case.find("failure") is not None else
                      "error" if case.find("error") is not None else
                      "skipped" if case.find("skipped") is not None else "success")
            suite_name, classname, name = (suite.get("name"), case.get("classname"),
                                           case.get("name"))
            key = hashlib.sha256(f"{suite_name}_{classname}_{name}".encode()).hexdigest()
            replaced += (status, key) in kept
            kept[(status, key)] = (key, status, suite_name, classname, name,
                                   ruby_to_f(case.get("time")))
    return list(kept.values()), replaced


def ruby_to_f(text):
    """Ruby's String#to_f: the longest leading number, else 0.0 (never an error)."""
    match = re.match(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?", text or "")
    return float(match.group(0)) if match else 0.0
