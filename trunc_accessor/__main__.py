import sys

from trunc_accessor.frontends.cli.trec_eval import main

sys.exit(main())
