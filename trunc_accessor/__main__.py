import sys

from .io.cli import main

sys.exit(main())
