"""``python -m testbed.cli``: what the ``mcastlab`` script runs."""

import sys

from .main import main

sys.exit(main())
