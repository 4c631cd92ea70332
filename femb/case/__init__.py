"""Case files: TOML -> Model + analysis steps -> results on disk (docs/case_files.md).

``load_case(path)`` reads and validates a case; ``Case.run(out_dir)`` runs its steps and
writes the ParaView collection, history.csv and run.json. Step types live in a registry
(``register_step_type``) so that other modules can add theirs; ``dynamic`` and
``modal`` are registered here. Dynamic steps write checkpoints, and
``Case.run(out_dir, restart=True)`` continues a killed run (femb.case.checkpoint).
"""
from femb.case import dynamic_step, modal_step, modification_step  # noqa: F401  (register their step types)
from femb.case.case import Case, OutputSettings, load_case, run_case
from femb.case.expressions import Expression, evaluate
from femb.case.steps import STEP_TYPES, Step, StepType, register_step_type

__all__ = [
    "Case", "OutputSettings", "load_case", "run_case", "Expression", "evaluate", "STEP_TYPES",
    "Step", "StepType", "register_step_type",
]
