"""Package discovery only (metadata is in pyproject.toml).

figbench's parts live in the folders a reader expects (``datasets/``, ``metrics/``,
``baselines/``, ``leaderboard/``) and install under importable names. Sub-packages are found
here, so adding a corpus, metric or baseline family never edits the packaging.
"""

from pathlib import Path

from setuptools import find_namespace_packages, setup

ROOT = Path(__file__).resolve().parent
#: import name -> folder
FOLDERS = {
    "figbench": "figbench",
    "figbench_datasets": "datasets",
    "figbench_metrics": "metrics",
    "figbench_baselines": "baselines",
    "figbench_leaderboard": "leaderboard",
}


def packages(name: str, folder: str) -> list[str]:
    found = find_namespace_packages(str(ROOT / folder), exclude=["*__pycache__*", "*.egg-info*"])
    return [name] + [f"{name}.{p}" for p in found if "screenshots" not in p]


setup(
    package_dir=FOLDERS,
    packages=[p for name, folder in FOLDERS.items() for p in packages(name, folder)],
    package_data={"": ["README.md", "*.json", "*.css", "*.js", "*.txt"]},
    include_package_data=False,
)
