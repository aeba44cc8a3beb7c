"""The benchmark suites (``mcastlab bench``, ``make bench``); `suites` lists them and
writes their files. A suite is a module with
``run(caps, progress, quick=False) -> dict`` (measures; the dict is written as NAME.json),
``markdown(res) -> list[str]`` (NAME.md) and optionally ``plot(res, path)`` (NAME.png, with
NAME.svg and NAME.pdf beside it: testbed.report.figures.save_figure, the caption from
testbed.bench.files.caption). Every list of rows in the result is also written as NAME.csv
(testbed.bench.files.write_csv).
Speed goals live in the suites' files, never in timed tests."""
