"""Every tensor type through set_tensor / get_tensor / tensor() with the numpy dtype tflite_runtime
uses, on models written here: `flatc` (a build dependency) turns a JSON description into a
.tflite file whose only subgraph passes its input through as its output (no operators)."""
import json
import shutil
import subprocess

import numpy as np
import pytest

import edgerun
from conftest import REPO

# schema name -> numpy dtype
TYPES = {
    "FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64,
    "INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64,
    "UINT8": np.uint8, "UINT16": np.uint16, "UINT32": np.uint32, "UINT64": np.uint64,
    "BOOL": np.bool_, "COMPLEX64": np.complex64, "COMPLEX128": np.complex128,
}


def build_model(tmp_path, tensors, inputs, outputs, buffers=None):
    flatc = shutil.which("flatc")
    if flatc is None:
        pytest.skip("flatc not installed (Debian: flatbuffers-compiler)")
    model = {
        "version": 3,
        "description": "edgerun python dtype test",
        "operator_codes": [],
        "subgraphs": [{"tensors": tensors, "inputs": inputs, "outputs": outputs, "operators": [], "name": "main"}],
        "buffers": buffers or [{}],
    }
    source = tmp_path / "model.json"
    source.write_text(json.dumps(model))
    subprocess.run([flatc, "-b", "-o", str(tmp_path), str(REPO / "schema" / "tflite.fbs"), str(source)],
                   check=True, capture_output=True)
    return str(tmp_path / "model.tflite")


@pytest.mark.parametrize("type_name", sorted(TYPES))
def test_round_trip_every_type(tmp_path, type_name):
    dtype = TYPES[type_name]
    path = build_model(tmp_path, [{"shape": [2, 3], "type": type_name, "buffer": 0, "name": "x"}], [0], [0])
    interpreter = edgerun.Interpreter(model_path=path)
    (detail,) = interpreter.get_input_details()
    assert detail["dtype"] is dtype
    assert interpreter.get_output_details()[0]["dtype"] is dtype
    interpreter.allocate_tensors()
    value = (np.arange(6).reshape(2, 3) % 2 == 1) if dtype is np.bool_ else (np.arange(6).reshape(2, 3) - 2)
    value = value.astype(dtype)
    interpreter.set_tensor(detail["index"], value)
    interpreter.invoke()
    result = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    assert result.dtype == dtype and result.shape == (2, 3)
    np.testing.assert_array_equal(result, value)
    view = interpreter.tensor(detail["index"])()
    assert view.dtype == dtype
    np.testing.assert_array_equal(view, value)
    del view
    # Another dtype of the same size is refused, not reinterpreted.
    other = np.int32 if dtype is np.float32 else np.float32
    with pytest.raises(ValueError, match="Cannot set tensor"):
        interpreter.set_tensor(detail["index"], np.zeros((2, 3), other))


def test_string_tensor(tmp_path):
    path = build_model(tmp_path, [{"shape": [3], "type": "STRING", "buffer": 0, "name": "s"}], [0], [0])
    interpreter = edgerun.Interpreter(model_path=path)
    (detail,) = interpreter.get_input_details()
    assert detail["dtype"] is np.bytes_
    interpreter.allocate_tensors()
    interpreter.set_tensor(detail["index"], np.array([b"edge", b"", b"run \xff"], dtype=object))
    interpreter.invoke()
    result = interpreter.get_tensor(detail["index"])
    assert result.dtype == object and result.tolist() == [b"edge", b"", b"run \xff"]
    interpreter.set_tensor(detail["index"], np.array(["a", "bc", "d"]))  # str elements, UTF-8
    assert interpreter.get_tensor(detail["index"]).tolist() == [b"a", b"bc", b"d"]
    with pytest.raises(ValueError, match="Dimension mismatch"):
        interpreter.set_tensor(detail["index"], np.array([b"x"], dtype=object))


def test_packed_int4_constant_is_unpacked(tmp_path):
    # Two int4 values per byte, low nibble first: 0x21 -> 1, 2; 0xF3 -> 3, -1.
    tensors = [{"shape": [1], "type": "FLOAT32", "buffer": 0, "name": "x"},
               {"shape": [4], "type": "INT4", "buffer": 1, "name": "w"}]
    path = build_model(tmp_path, tensors, [0], [0], buffers=[{}, {"data": [0x21, 0xF3]}])
    interpreter = edgerun.Interpreter(model_path=path)
    details = interpreter.get_tensor_details()
    assert [d["name"] for d in details] == ["x", "w"]
    assert details[1]["dtype"] is np.int8
    np.testing.assert_array_equal(interpreter.get_tensor(1), np.array([1, 2, 3, -1], np.int8))


def test_constant_view_is_read_only(tmp_path):
    tensors = [{"shape": [2], "type": "FLOAT32", "buffer": 0, "name": "x"},
               {"shape": [2], "type": "INT32", "buffer": 1, "name": "c"}]
    path = build_model(tmp_path, tensors, [0], [0], buffers=[{}, {"data": [1, 0, 0, 0, 2, 0, 0, 0]}])
    interpreter = edgerun.Interpreter(model_path=path)
    interpreter.allocate_tensors()
    np.testing.assert_array_equal(interpreter.get_tensor(1), np.array([1, 2], np.int32))
    view = interpreter.tensor(1)()
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="constant"):
        interpreter.set_tensor(1, np.array([3, 4], np.int32))
