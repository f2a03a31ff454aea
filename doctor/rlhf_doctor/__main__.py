import sys

from rlhf_doctor.cli import main

sys.exit(main())
