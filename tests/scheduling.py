"""How `make test` (`pytest -n auto --dist loadfile`) shares the modules out between its
workers: a module is one unit of work, so its module-scoped live servers start once,
except the modules in SPREAD, whose tests go out one unit per parameter (a CLI kind,
say) so a long module runs on both cores. Units go out in collection order, which
tests/conftest.py sorts slowest first: a long module started last would run alone."""

from xdist.scheduler import LoadFileScheduling

# Long modules whose parametrized tests may run on any worker; each worker that runs
# some starts the module's server for itself.
SPREAD = ("tests/agentcli/test_attach_clis.py", "tests/test_bench_quick.py")


class ModuleScheduling(LoadFileScheduling):
    def __init__(self, config, log=None) -> None:
        super().__init__(config, log)
        # Keep the collection's order (slowest first) rather than the largest unit first.
        self.config.option.loadscopereorder = False

    def _split_scope(self, nodeid: str) -> str:
        module = nodeid.split("::", 1)[0]
        if module in SPREAD and nodeid.endswith("]"):
            return f"{module}[{nodeid.rsplit('[', 1)[1]}"
        return module
