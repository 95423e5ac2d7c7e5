"""Reports people look at, made from the plan's data (`Plan.to_dict()`, DESIGN §4) and the
validation's problems: beside `render/`, which prints the plan itself.

    findings.py      every located diagnostic as a `Finding` (file, line, column)
    annotations.py   GitHub workflow commands and GitLab's Code Quality report
    summary.py       the job summary (GitHub's $GITHUB_STEP_SUMMARY)
    junit.py         JUnit XML: a test case per kind (and environment)
    html.py          one self-contained HTML page, its CSS and script inline
    drift.py         the drift issue's decision: open, update, close or leave
    tracker.py       that decision carried out through GitHub's or GitLab's issues API
    files.py         the reports a run asked for, written (annotations on stderr, files)

Everything here is pure but `tracker.py` (HTTP through httpx) and `files.py` (stderr and
the report files). Secrets are masked (`reconciler.masking.mask`) in everything these
modules produce; the files are written through `masking.write_text`, the writer of every
output file.
"""
