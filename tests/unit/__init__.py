"""Unit tests: no network. They mirror the source tree: the tests of `<package path>/X.py`
(or of the package `<package path>/X/`) are `tests/unit/<package path>/test_X.py`, one
test module per source module (tests/unit/test_layout.py holds the mirror).

At this top level stand only the tests of rules that cut across modules:

    test_layout.py          the import floors, cycles, function-level imports, this mirror
    test_cli_errors.py      every command refuses bad input in one line, before a network
    test_results_durable.py a results folder survives a torn record, a full disk, a link
    test_component_faults.py a dead controller or a killed rank ends a run with one message
    test_makefile.py        make clean keeps every measured result; clean-results removes them
    test_api_reference.py   the API reference (make docs) builds and names every public function
    test_tutorial.py        docs/tutorial.md's commands parse with today's options, no old spelling
    test_wrapper.py         sudo mcastlab runs only a checkout no other user can change
    test_docs_names.py      the pages name no file, folder or module that does not exist
    test_packaging.py       runtime dependencies apart from the test, lint and docs tools
"""
