"""pip install . -- the Python package `edgerun` and its `tflite_runtime` compatibility package.

Offline and without build isolation: the native module is built by the project's CMake build
(target edgerun_python), reusing build/ when it is already configured (EDGERUN_BUILD_DIR chooses
another folder; JOBS the parallel jobs, default 1). Needs what `make build` needs plus Debian's
python3-dev, python3-pybind11 and python3-numpy. On Debian's system Python, install into a
virtual environment that sees the system packages (numpy):

    python3 -m venv --system-site-packages .venv && .venv/bin/pip install .
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).parent.resolve()
BUILD = pathlib.Path(os.environ.get("EDGERUN_BUILD_DIR", ROOT / "build")).resolve()
PIP_WORK = BUILD / "pip"  # setuptools' own build files, out of the source tree


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        if not (BUILD / "CMakeCache.txt").exists():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(BUILD), "-DCMAKE_BUILD_TYPE=Release",
                                   "-DPython_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["cmake", "--build", str(BUILD), "--target", "edgerun_python", "-j",
                               os.environ.get("JOBS", "1")])
        built = sorted((BUILD / "python" / "edgerun").glob("_edgerun*.so"))
        if not built:
            sys.exit("setup.py: the CMake build did not produce the module (is pybind11 installed?)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[-1], target)


PIP_WORK.mkdir(parents=True, exist_ok=True)
setup(
    name="edgerun",
    version="0.1.0",
    description="TensorFlow Lite models on edgerun, with tflite_runtime's Python API",
    package_dir={"": "python"},
    packages=["edgerun", "tflite_runtime"],
    ext_modules=[Extension("edgerun._edgerun", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    install_requires=["numpy"],
    python_requires=">=3.9",
    zip_safe=False,
    options={"build": {"build_base": str(PIP_WORK)}, "egg_info": {"egg_base": str(PIP_WORK)}},
)
