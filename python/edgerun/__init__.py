"""edgerun: run TensorFlow Lite models from Python with tflite_runtime's API.

    from edgerun import Interpreter            # or: from tflite_runtime.interpreter import Interpreter
    interpreter = Interpreter(model_path="model.tflite")
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], image)
    interpreter.invoke()
    scores = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])

Tensor indices ("index" in the details) are indices into the tensors of subgraph 0, as in
TensorFlow Lite. Bad arguments raise ValueError; a failing allocate/invoke raises RuntimeError with
edgerun's message (file, subgraph, op, tensor and what was expected).
"""
import ctypes
import enum
import sys
import warnings

import numpy as np

from edgerun import _edgerun

__version__ = "0.1.0"
# The TensorFlow Lite version whose Python API this package follows.
TFLITE_VERSION = _edgerun.TFLITE_VERSION

__all__ = ["Interpreter", "SignatureRunner", "Delegate", "load_delegate", "OpResolverType"]


class Delegate:
    """A delegate loaded from a shared library (TFLite's external delegate plugin interface).

    edgerun accepts delegates so that scripts written for tflite_runtime run unchanged, but runs
    every op on its own kernels: the delegate is created and kept alive, never applied.
    """

    def __init__(self, library, options=None):
        self._library = None
        self._delegate_ptr = None
        library_handle = ctypes.pydll.LoadLibrary(library)  # OSError when the library is missing
        create = library_handle.tflite_plugin_create_delegate
        create.argtypes = [
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
            ctypes.CFUNCTYPE(None, ctypes.c_char_p)
        ]
        create.restype = ctypes.c_void_p
        options = options or {}
        keys = (ctypes.c_char_p * len(options))()
        values = (ctypes.c_char_p * len(options))()
        for i, (key, value) in enumerate(options.items()):
            keys[i] = str(key).encode("utf-8")
            values[i] = str(value).encode("utf-8")
        messages = []

        def report(message):
            messages.append(message.decode("utf-8") if isinstance(message, bytes) else str(message))

        callback = ctypes.CFUNCTYPE(None, ctypes.c_char_p)(report)
        pointer = create(keys, values, len(options), callback)
        if pointer is None:
            raise ValueError("".join(messages))
        self._library = library_handle
        self._delegate_ptr = pointer

    def __del__(self):
        if self._library is not None and self._delegate_ptr is not None:
            destroy = self._library.tflite_plugin_destroy_delegate
            destroy.argtypes = [ctypes.c_void_p]
            destroy(self._delegate_ptr)
            self._library = None

    def _get_native_delegate_pointer(self):
        return self._delegate_ptr


def load_delegate(library, options=None):
    """Loads a delegate plugin library; ValueError when it cannot be loaded (see Delegate)."""
    try:
        return Delegate(library, options)
    except (OSError, AttributeError, ValueError) as e:
        raise ValueError("Failed to load delegate from {}\n{}".format(library, e)) from None


@enum.unique
class OpResolverType(enum.Enum):
    """Kernel choice, as in TFLite. AUTO and BUILTIN give LiteRT's default arithmetic (8-bit ops
    rounded the way its default XNNPACK path rounds); BUILTIN_REF and
    BUILTIN_WITHOUT_DEFAULT_DELEGATES give TFLite's builtin kernels' fixed-point arithmetic."""
    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


class SignatureRunner:
    """Runs one signature (named inputs and outputs): runner(x=array, ...) -> {name: array}."""

    def __init__(self, interpreter=None, signature_key=None):
        if not interpreter:
            raise ValueError("None interpreter provided.")
        if not signature_key:
            raise ValueError("None signature_key provided.")
        definitions = interpreter._get_full_signature_list()
        if signature_key not in definitions:
            raise ValueError("Invalid signature_key provided: '{}' (the model has: {})".format(
                signature_key, ", ".join(definitions) or "none"))
        self._interpreter = interpreter
        self._wrapper = interpreter._interpreter
        self._signature_key = signature_key
        self._inputs = definitions[signature_key]["inputs"]
        self._outputs = definitions[signature_key]["outputs"]
        self._subgraph_index = self._wrapper.subgraph_index_from_signature(signature_key)

    def __call__(self, **kwargs):
        if len(kwargs) != len(self._inputs):
            raise ValueError("Invalid number of inputs provided for running a SignatureDef, "
                             "expected %s vs provided %s" % (len(self._inputs), len(kwargs)))
        values = {}
        for name, value in kwargs.items():
            if name not in self._inputs:
                raise ValueError("Invalid Input name (%s) for SignatureDef" % name)
            values[name] = np.asarray(value)
        for name, value in values.items():
            self._wrapper.resize_input_tensor(self._inputs[name], np.array(value.shape, dtype=np.int32),
                                              False, self._subgraph_index)
        self._wrapper.allocate_tensors(self._subgraph_index)
        for name, value in values.items():
            self._wrapper.set_tensor(self._inputs[name], value, self._subgraph_index)
        self._wrapper.invoke(self._subgraph_index)
        return {name: self._wrapper.get_tensor(index, self._subgraph_index)
                for name, index in self._outputs.items()}

    def get_input_details(self):
        return {name: self._wrapper.tensor_details(index, self._subgraph_index)
                for name, index in self._inputs.items()}

    def get_output_details(self):
        return {name: self._wrapper.tensor_details(index, self._subgraph_index)
                for name, index in self._outputs.items()}


class Interpreter:
    """tflite_runtime.interpreter.Interpreter, running on edgerun."""

    def __init__(self,
                 model_path=None,
                 model_content=None,
                 experimental_delegates=None,
                 num_threads=None,
                 experimental_op_resolver_type=OpResolverType.AUTO,
                 experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False,
                 experimental_default_delegate_latest_features=False):
        if not isinstance(experimental_op_resolver_type, OpResolverType):
            raise ValueError("Unrecognized passed in op resolver type: {}".format(
                experimental_op_resolver_type))
        if num_threads is not None:
            if not isinstance(num_threads, int):
                raise ValueError("type of num_threads should be int")
            if num_threads < 1:
                raise ValueError("num_threads should >= 1")
        reference = experimental_op_resolver_type in (OpResolverType.BUILTIN_REF,
                                                      OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        threads = int(num_threads or 1)
        # As in TFLite: every intermediate tensor kept readable after invoke(), without the
        # default delegate (and here without fused chains either).
        preserve = bool(experimental_preserve_all_tensors)
        if model_path and not model_content:
            self._interpreter = _edgerun.InterpreterWrapper.from_file(str(model_path), threads, reference, preserve)
        elif model_content and not model_path:
            self._interpreter = _edgerun.InterpreterWrapper.from_buffer(model_content, threads, reference, preserve)
        elif not model_path and not model_content:
            raise ValueError("`model_path` or `model_content` must be specified.")
        else:
            raise ValueError("Can't both provide `model_path` and `model_content`")
        # Delegates are kept alive with the interpreter, but edgerun runs every op itself.
        self._delegates = list(experimental_delegates or [])
        if self._delegates:
            warnings.warn("edgerun runs every op on its own kernels: the {} delegate(s) given are not "
                          "applied".format(len(self._delegates)), RuntimeWarning, stacklevel=2)
        self._signature_defs = self.get_signature_list()

    def __del__(self):
        # The interpreter goes before the delegates it may refer to.
        self._interpreter = None
        self._delegates = None

    # -- memory safety: no numpy view of internal buffers may survive a reallocation

    def _safe_to_run(self):
        # tensor() views hold a reference to self._interpreter; with none alive the count is 2
        # (this attribute and getrefcount's argument).
        return sys.getrefcount(self._interpreter) == 2

    def _ensure_safe(self):
        if not self._safe_to_run():
            raise RuntimeError("There is at least 1 reference to internal data in the interpreter in "
                               "the form of a numpy array or slice. Be sure to only hold the function "
                               "returned from tensor() if you are using raw data access.")

    # -- the tflite_runtime API

    def allocate_tensors(self):
        self._ensure_safe()
        return self._interpreter.allocate_tensors(0)

    def invoke(self):
        self._ensure_safe()
        self._interpreter.invoke(0)

    def reset_all_variables(self):
        return self._interpreter.reset_variable_tensors()

    def num_subgraphs(self):
        return self._interpreter.num_subgraphs()

    def _get_tensor_details(self, tensor_index, subgraph_index):
        return self._interpreter.tensor_details(int(tensor_index), int(subgraph_index))

    def _get_op_details(self, op_index):
        """Experimental in tflite_runtime too: the op name and tensors of node `op_index`."""
        name, inputs, outputs = self._interpreter.node_info(int(op_index))
        return {
            "index": int(op_index),
            "op_name": name,
            "inputs": inputs,
            "outputs": outputs,
            "operand_types": [self._get_tensor_details(i, 0)["dtype"] for i in inputs if i != -1],
            "result_types": [self._get_tensor_details(i, 0)["dtype"] for i in outputs if i != -1],
        }

    def _get_ops_details(self):
        return [self._get_op_details(i) for i in range(self._interpreter.num_nodes())]

    def get_tensor_details(self, subgraph_index=0):
        count = self._interpreter.num_subgraphs()
        if subgraph_index < 0 or subgraph_index >= count:
            raise ValueError("subgraph_index is out of range: {} for the model, which has {} "
                             "subgraphs.".format(subgraph_index, count))
        return [self._interpreter.tensor_details(i, subgraph_index)
                for i in range(self._interpreter.num_tensors(subgraph_index))]

    def get_input_details(self):
        return [self._interpreter.tensor_details(i, 0) for i in self._interpreter.input_indices(0)]

    def get_output_details(self):
        return [self._interpreter.tensor_details(i, 0) for i in self._interpreter.output_indices(0)]

    def set_tensor(self, tensor_index, value):
        self._interpreter.set_tensor(int(tensor_index), value, 0)

    def get_tensor(self, tensor_index, subgraph_index=0):
        return self._interpreter.get_tensor(int(tensor_index), int(subgraph_index))

    def tensor(self, tensor_index):
        """A function that returns a numpy view (no copy) of the tensor's current memory. Hold the
        function, not the array: allocate_tensors() and invoke() refuse to run while views live."""
        index = int(tensor_index)
        return lambda: self._interpreter.tensor(self._interpreter, index, 0)

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        self._ensure_safe()
        shape = np.array(tensor_size, dtype=np.int32)
        self._interpreter.resize_input_tensor(int(input_index), shape, bool(strict), 0)

    def get_signature_list(self):
        definitions = self._interpreter.signature_defs()
        return {key: {"inputs": list(d["inputs"].keys()), "outputs": list(d["outputs"].keys())}
                for key, d in definitions.items()}

    def _get_full_signature_list(self):
        return self._interpreter.signature_defs()

    def get_signature_runner(self, signature_key=None):
        if signature_key is None:
            if len(self._signature_defs) != 1:
                raise ValueError("SignatureDef signature_key is None and model has {0} Signatures. "
                                 "None is only allowed when the model has 1 SignatureDef".format(
                                     len(self._signature_defs)))
            signature_key = next(iter(self._signature_defs))
        return SignatureRunner(interpreter=self, signature_key=signature_key)


class InterpreterWithCustomOps(Interpreter):
    """tflite_runtime's variant that registers custom ops through C++ functions. edgerun has its
    own custom ops built in and cannot load TFLite kernels, so `custom_op_registerers` must be
    empty."""

    def __init__(self, custom_op_registerers=None, **kwargs):
        if custom_op_registerers:
            raise ValueError("edgerun cannot register TensorFlow Lite custom op kernels; the custom ops "
                             "it implements are built in")
        super().__init__(**kwargs)
