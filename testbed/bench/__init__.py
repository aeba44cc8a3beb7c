"""The benchmark suites (``mcastlab bench``, ``make bench``); `suites` lists them and
writes their files. A suite is a module with
``run(caps, progress, quick=False) -> dict`` (measures; the dict is written as NAME.json),
``markdown(res) -> list[str]`` (NAME.md) and optionally ``plot(res, path)`` (NAME.png).
Speed goals live in the suites' files, never in timed tests."""
