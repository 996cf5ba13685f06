"""A resolver for tests, which cannot reach the public internet: names answer what the test
sets, and each lookup is recorded (a connection pinned to its check looks a name up once)."""

from dataclasses import dataclass, field

PUBLIC = "93.184.216.34"  # a global address; tests route it to a local server


@dataclass
class StubDns:
    answers: dict[str, list[list[str]]] = field(default_factory=dict)
    routes: dict[tuple[str, int], tuple[str, int]] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    def resolve(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        lookups = self.answers.get(host)
        if not lookups:
            raise OSError(f"{host}: no such name")
        return lookups.pop(0) if len(lookups) > 1 else lookups[0]

    def public_name(self, name: str, *, port: int, to: tuple[str, int]) -> str:
        """`name` resolves to PUBLIC, whose `port` is served by the local server `to`."""
        self.answers[name] = [[PUBLIC]]
        self.routes[(PUBLIC, port)] = to
        return name
