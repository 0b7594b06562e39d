"""Read a training script (ast, never run) for APIs the chosen TensorFlow lacks: TF1 APIs on
TF2, tf.estimator on TF 2.16+, and Keras 3 ``model.fit`` under strategies it cannot run.
"""

from __future__ import annotations

import ast
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core.doctor.fixes import REMOVED_MODULES, FixContext, finding_title, make_finding
from core.doctor.kb import Version, minor_of, parse_version
from core.findings import Finding, Text

# tf.<name> that TF2 removed (tf.compat.v1.<name> still has them).
TF1_ONLY = frozenset({
    "Session", "InteractiveSession", "placeholder", "placeholder_with_default", "app",
    "flags", "get_variable", "variable_scope", "global_variables_initializer", "ConfigProto",
    "GPUOptions", "reset_default_graph", "get_default_graph", "random_normal", "random_uniform",
    "set_random_seed", "to_float", "to_int32", "Print", "layers", "gfile", "python_io",
    "local_variables_initializer", "global_variables", "trainable_variables", "RunOptions",
    "losses.softmax_cross_entropy",
})
TF1_ONLY_TRAIN = frozenset({
    "replica_device_setter", "MonitoredTrainingSession", "Saver", "Server", "AdamOptimizer",
    "GradientDescentOptimizer", "MomentumOptimizer", "RMSPropOptimizer", "AdagradOptimizer",
    "SyncReplicasOptimizer", "StopAtStepHook", "get_or_create_global_step", "get_global_step",
    "Supervisor", "string_input_producer", "batch", "shuffle_batch", "start_queue_runners",
})
KERAS3_STRATEGIES = ("ParameterServerStrategy", "MultiWorkerMirroredStrategy")
_MULTI_PROCESS_STRATEGY = re.compile(r"parameter_?server|multi_?worker|(^|_)ps($|_)")


@dataclass
class ScriptUse:
    """What the script touches: dotted TF names (with line numbers), strategies, fit calls."""

    tf1: list[tuple[int, str]] = field(default_factory=list)
    #: Uses of modules TF 2 removed: (line, name as written, the module).
    removed: list[tuple[int, str, str]] = field(default_factory=list)
    estimator: list[tuple[int, str]] = field(default_factory=list)
    strategies: list[tuple[int, str]] = field(default_factory=list)
    fit_calls: list[int] = field(default_factory=list)


class _Visitor(ast.NodeVisitor):
    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}  # local name -> module path ("tensorflow", ...)
        self.use = ScriptUse()

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name == "tensorflow" or a.name.startswith(("tensorflow.", "keras")):
                self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                    a.name.split(".")[0]
            if a.name.startswith("tensorflow."):  # import tensorflow.examples.tutorials...
                self._check(a.name, node.lineno)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if module == "tensorflow" or module.startswith("tensorflow."):
            for a in node.names:
                full = f"{module}.{a.name}"
                self.aliases[a.asname or a.name] = full
                self._check(full, node.lineno)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        dotted = _dotted(node)
        if dotted:
            head, _, rest = dotted.partition(".")
            if head in self.aliases and rest:
                self._check(f"{self.aliases[head]}.{rest}", node.lineno)
            if node.attr in KERAS3_STRATEGIES:
                self.use.strategies.append((node.lineno, node.attr))
            # Only the outermost attribute of a chain is checked (no double counting).
            return
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in KERAS3_STRATEGIES:
            self.use.strategies.append((node.lineno, node.id))

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "fit":
            self.use.fit_calls.append(node.lineno)
        self.generic_visit(node)

    def _check(self, full: str, line: int) -> None:
        if full.startswith("tensorflow.compat.v1") or not full.startswith("tensorflow."):
            return
        parts = full.split(".")[1:]
        shown = "tf." + ".".join(parts)
        if f"tensorflow.{parts[0]}" in REMOVED_MODULES:
            self.use.removed.append((line, shown, f"tensorflow.{parts[0]}"))
        elif parts[0] == "estimator" or full.startswith("tensorflow.python.estimator"):
            self.use.estimator.append((line, shown))
        elif parts[0] in TF1_ONLY or (parts[0] == "train" and len(parts) > 1
                                      and parts[1] in TF1_ONLY_TRAIN):
            self.use.tf1.append((line, shown))
        for name in parts:
            if name in KERAS3_STRATEGIES:
                self.use.strategies.append((line, name))


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


# One parse at a time in this process: CPython 3.11 keeps the AST constructor's recursion depth in
# state all threads share, so two threads parsing at once (the window checks a job in the
# background, twice when clicked twice) can fail with "SystemError: AST constructor recursion
# depth mismatch" (python/cpython#106905; seen in CI).
_PARSING = threading.Lock()


def read_script_use(source: str, filename: str = "<script>") -> ScriptUse:
    """Parse ``source``; raises SyntaxError for code Python 3 cannot read."""
    visitor = _Visitor()
    with _PARSING:
        tree = ast.parse(source, filename=filename)
    visitor.visit(tree)
    return visitor.use


def legacy_keras_active(env: Mapping[str, str], packages: Mapping[str, str] | None) -> bool:
    """TF 2.16+ uses Keras 2 only with TF_USE_LEGACY_KERAS=1 *and* tf-keras installed."""
    flag = env.get("TF_USE_LEGACY_KERAS", "").strip().lower() in ("1", "true", "yes")
    return flag and (packages is None or "tf-keras" in packages)


@dataclass(frozen=True)
class _Scan:
    """One scan's inputs, shared by the rule helpers below (each reads a few of them)."""

    script: Path
    version: Version | None
    env: Mapping[str, str]
    packages: Mapping[str, str] | None
    strategy: str | None
    platform: str | None
    python_exe: str | None

    @property
    def tf(self) -> Version:
        """The TF minor the rules compare with; a current TF 2 when the version is unknown."""
        return minor_of(self.version) if self.version else (2, 99)

    def fix(self, detail: dict) -> FixContext:
        """What a finding's fix text may use: this scan's TF, platform, Python and ``detail``."""
        return FixContext(platform=self.platform, tf_version=self.version,
                          python_exe=self.python_exe, detail=detail)


def scan_script(script: Path, *, tf_version: str | Version | None = None,
                env: Mapping[str, str] | None = None, packages: Mapping[str, str] | None = None,
                strategy: str | None = None, platform: str | None = None,
                python_exe: str | None = None) -> list[Finding]:
    """Findings for ``script`` run by a TF of ``tf_version`` (None: assume a current TF 2).

    ``strategy`` is the launcher's strategy name; a parameter-server or multi-worker job
    counts as using that strategy even when the script builds it from TF_CONFIG indirectly.
    """
    scan = _Scan(Path(script), parse_version(tf_version) if isinstance(tf_version, str)
                 else tf_version, {} if env is None else env, packages, strategy, platform,
                 python_exe)
    use = _read_use(scan)
    if isinstance(use, Finding):
        return [use]
    found = (_tf1_finding(scan, use), _estimator_finding(scan, use), _keras3_fit_finding(scan, use))
    return [f for f in found if f is not None]


def _read_use(scan: _Scan) -> ScriptUse | Finding:
    """What the script uses, or the finding that says it cannot be read (it is never run)."""
    name = scan.script.name
    try:
        return read_script_use(scan.script.read_text(encoding="utf-8", errors="replace"),
                               str(scan.script))
    except SyntaxError as exc:
        return make_finding("script-not-parsed", f"{name}:{exc.lineno}: {exc.msg}",
                            scan.fix({"script": name}))
    except (RecursionError, MemoryError):  # an expression too deep for the parser
        return make_finding("script-not-parsed", f"{name}: too deeply nested to read",
                            scan.fix({"script": name}))


def _tf1_finding(scan: _Scan, use: ScriptUse) -> Finding | None:
    """TF1 APIs or modules TF 2 removed, on TF 2; the title names the removed modules, whose
    fix is not ``tf_upgrade_v2``."""
    if scan.tf < (2, 0) or not (use.tf1 or use.removed):
        return None
    name, label = scan.script.name, _label(scan.version)
    hits = [(line, shown) for line, shown, _ in use.removed] + use.tf1
    modules = list(dict.fromkeys(module for _, _, module in use.removed))
    title = (finding_title("tf1-api-on-tf2.script-modules", script=name,
                           modules=", ".join(modules), tf=label) if modules else
             finding_title("tf1-api-on-tf2.script", script=name, tf=label))
    return make_finding("tf1-api-on-tf2", _evidence(scan.script, hits),
                        scan.fix({"script": name, "removed": modules}), title=title)


def _estimator_finding(scan: _Scan, use: ScriptUse) -> Finding | None:
    """tf.estimator, which TF 2.16 removed."""
    if scan.tf < (2, 16) or not use.estimator:
        return None
    return make_finding("keras3-strategy-unsupported", _evidence(scan.script, use.estimator),
                        scan.fix({"estimator": True}),
                        title=finding_title("keras3-strategy-unsupported.script-estimator",
                                            script=scan.script.name))


def _keras3_fit_finding(scan: _Scan, use: ScriptUse) -> Finding | None:
    """Keras 3's ``model.fit`` under a strategy it cannot run (TF 2.16+ without legacy Keras)."""
    strategies = _strategies(scan, use)
    if scan.tf < (2, 16) or legacy_keras_active(scan.env, scan.packages) or not (
            strategies and use.fit_calls):
        return None
    line, first = strategies[0]
    shown = first if line else Text.of("doctor.launcher_strategy", strategy=scan.strategy)
    return make_finding(
        "keras3-strategy-unsupported", _fit_evidence(scan, strategies, use.fit_calls),
        scan.fix({"tf_keras": (scan.packages or {}).get("tf-keras")}),
        title=finding_title("keras3-strategy-unsupported.script-fit", strategy=shown,
                            tf=_label(scan.version)))


def _strategies(scan: _Scan, use: ScriptUse) -> list[tuple[int, str]]:
    """The strategies the script names, and the launcher's when it runs several processes
    (the script may build that one from TF_CONFIG, out of the scan's sight); line 0: the
    launcher's."""
    strategies = list(use.strategies)
    if scan.strategy and _MULTI_PROCESS_STRATEGY.search(
            scan.strategy.lower().replace("-", "_")):
        strategies.append((0, f"launcher strategy '{scan.strategy}'"))
    return strategies


def _fit_evidence(scan: _Scan, strategies: list[tuple[int, str]],
                  fit_calls: list[int]) -> list[str]:
    """The strategy, the fit call, and the legacy-Keras switch that would make it work."""
    name = scan.script.name
    lines = [f"{name}:{ln}: {shown}" if ln else shown for ln, shown in strategies[:2]]
    lines += [f"{name}:{ln}: model.fit(...)" for ln in fit_calls[:1]]
    tf_keras = "" if scan.packages is None else (
        f", tf-keras {'installed' if 'tf-keras' in scan.packages else 'not installed'}")
    lines.append("TF_USE_LEGACY_KERAS=" + scan.env.get("TF_USE_LEGACY_KERAS", "(unset)")
                 + tf_keras)
    return lines


def _label(version: Version | None) -> str:
    return ".".join(map(str, version)) if version else "2.x"


def _evidence(script: Path, hits: list[tuple[int, str]]) -> list[str]:
    return [f"{script.name}:{line}: {name}" for line, name in sorted(set(hits))[:5]]
