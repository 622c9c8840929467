"""`python -m xlcons.estimate --configfile ...`: xlcons.estimate.command."""

import sys

from xlcons.estimate.command import main

sys.exit(main())
