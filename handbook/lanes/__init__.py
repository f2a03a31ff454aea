"""Running pages: the paste-run harness and its worker process, the pytest plugin, the tiny-model run record and
the real-model lane."""
