"""tflite_runtime, provided by edgerun: `from tflite_runtime.interpreter import Interpreter` runs
TensorFlow Lite models on edgerun with the API of Google's tflite_runtime package."""
from edgerun import TFLITE_VERSION as _TFLITE_VERSION
from edgerun import __version__ as _EDGERUN_VERSION

# A PEP 440 version: TFLite's, with edgerun's as the local part.
__version__ = "{}+edgerun.{}".format(_TFLITE_VERSION, _EDGERUN_VERSION)
__git_version__ = "edgerun-" + _EDGERUN_VERSION
