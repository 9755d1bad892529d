import sys

from flashsched.cli import script_main

sys.exit(script_main())
