"""``python -m flashtail sweep SPEC --backend ray``: see ``flashtail._sweep.main``."""

import sys

from ._sweep import main

sys.exit(main())
