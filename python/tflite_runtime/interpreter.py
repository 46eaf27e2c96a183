"""tflite_runtime.interpreter on edgerun: the same names as Google's module."""
from edgerun import Delegate
from edgerun import Interpreter
from edgerun import InterpreterWithCustomOps
from edgerun import OpResolverType
from edgerun import SignatureRunner
from edgerun import load_delegate

__all__ = ["Delegate", "Interpreter", "InterpreterWithCustomOps", "OpResolverType", "SignatureRunner",
           "load_delegate"]
