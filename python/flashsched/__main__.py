import sys

from flashsched.cli import main

sys.exit(main())
