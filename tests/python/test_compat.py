"""Drop-in compatibility: a script written for tflite_runtime runs unchanged; the C library loads
under TFLite's name (libtensorflowlite_c.so) and works through the C API from ctypes; the
examples classify the corpus image."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import BUILD, REPO, case_dir, case_json

MOBILENET = "coral_mobilenet_v2_1.0_224_quant"
HERE = os.path.dirname(os.path.abspath(__file__))


def python_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(BUILD / "python") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def top_classes(lines, pattern):
    import re
    return [int(m.group(1)) for m in (re.search(pattern, line) for line in lines) if m]


def test_tflite_runtime_package_is_edgerun():
    import edgerun
    import tflite_runtime
    from tflite_runtime.interpreter import Interpreter, SignatureRunner, load_delegate
    assert Interpreter is edgerun.Interpreter
    assert SignatureRunner is edgerun.SignatureRunner
    assert load_delegate is edgerun.load_delegate
    assert tflite_runtime.__version__.startswith("2.")


def test_label_image_script_runs_unchanged(tmp_path):
    folder = case_dir(MOBILENET)
    labels = tmp_path / "labels.txt"
    labels.write_text("".join("label_{}\n".format(i) for i in range(1001)))
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "scripts", "label_image.py"), "-m", str(folder / "model.tflite"),
         "-i", str(folder / "input_0.bin"), "-l", str(labels), "--num_threads", "2",
         "-e", "libnot_an_edgetpu_delegate.so.1"],
        env=python_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("delegate not loaded")
    ranked = [line for line in lines if ": label_" in line]
    assert len(ranked) == 5
    assert ranked[0].endswith("label_{}".format(case_json(MOBILENET)["expected_top1"]))


def test_c_library_loads_under_tflite_name():
    path = BUILD / "libtensorflowlite_c.so"
    if not path.exists():
        pytest.skip("{} not built".format(path))
    lib = ctypes.CDLL(str(path))
    lib.TfLiteVersion.restype = ctypes.c_char_p
    assert lib.TfLiteVersion().startswith(b"2.")
    for name in ("TfLiteModelCreateFromFile", "TfLiteInterpreterCreate", "TfLiteInterpreterGetInputTensor",
                 "TfLiteInterpreterGetOutputTensor", "TfLiteTensorData"):
        getattr(lib, name).restype = ctypes.c_void_p
    for name in ("TfLiteInterpreterAllocateTensors", "TfLiteInterpreterInvoke", "TfLiteTensorCopyFromBuffer",
                 "TfLiteTensorCopyToBuffer"):
        getattr(lib, name).restype = ctypes.c_int
    lib.TfLiteTensorByteSize.restype = ctypes.c_size_t
    lib.TfLiteTensorByteSize.argtypes = [ctypes.c_void_p]
    lib.TfLiteInterpreterCreate.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.TfLiteInterpreterGetInputTensor.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.TfLiteInterpreterGetOutputTensor.argtypes = [ctypes.c_void_p, ctypes.c_int32]
    lib.TfLiteInterpreterAllocateTensors.argtypes = [ctypes.c_void_p]
    lib.TfLiteInterpreterInvoke.argtypes = [ctypes.c_void_p]
    lib.TfLiteTensorCopyFromBuffer.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.TfLiteTensorCopyToBuffer.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    lib.TfLiteInterpreterDelete.argtypes = [ctypes.c_void_p]
    lib.TfLiteModelDelete.argtypes = [ctypes.c_void_p]

    folder = case_dir("tflite_add")
    spec = case_json("tflite_add")
    model = lib.TfLiteModelCreateFromFile(str(folder / "model.tflite").encode())
    assert model
    interpreter = lib.TfLiteInterpreterCreate(model, None)
    assert interpreter
    assert lib.TfLiteInterpreterAllocateTensors(interpreter) == 0
    x = np.fromfile(str(folder / "input_0.bin"), np.float32)
    tensor_in = lib.TfLiteInterpreterGetInputTensor(interpreter, 0)
    assert lib.TfLiteTensorByteSize(tensor_in) == x.nbytes
    assert lib.TfLiteTensorCopyFromBuffer(tensor_in, x.ctypes.data, x.nbytes) == 0
    assert lib.TfLiteInterpreterInvoke(interpreter) == 0
    y = np.empty(spec["outputs"][0]["shape"], np.float32)
    assert lib.TfLiteTensorCopyToBuffer(lib.TfLiteInterpreterGetOutputTensor(interpreter, 0), y.ctypes.data,
                                        y.nbytes) == 0
    expected = np.fromfile(str(folder / "expected_0.bin"), np.float32).reshape(y.shape)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    lib.TfLiteInterpreterDelete(interpreter)
    lib.TfLiteModelDelete(model)


def test_c_library_exports_only_the_c_api():
    path = BUILD / "libtensorflowlite_c.so"
    if not path.exists():
        pytest.skip("{} not built".format(path))
    nm = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True, text=True)
    if nm.returncode != 0:
        pytest.skip("nm not available")
    symbols = [line.split()[-1] for line in nm.stdout.splitlines() if line.split()[1:2] == ["T"]]
    assert symbols and all(s.startswith("TfLite") for s in symbols), symbols[:10]


def test_examples_classify_the_corpus_image(tmp_path):
    folder = case_dir(MOBILENET)
    expected = case_json(MOBILENET)["expected_top1"]
    labels = tmp_path / "labels.txt"
    labels.write_text("".join("name_{}\n".format(i) for i in range(1001)))
    args = [str(folder / "model.tflite"), str(folder / "input_0.bin"), str(labels)]
    runs = {}
    binary = BUILD / "examples" / "classify"
    if binary.exists():
        runs["c"] = subprocess.run([str(binary)] + args, capture_output=True, text=True, timeout=300)
    runs["python"] = subprocess.run([sys.executable, str(REPO / "examples" / "classify.py")] + args,
                                    env=python_env(), capture_output=True, text=True, timeout=300)
    classes = {}
    for language, result in runs.items():
        assert result.returncode == 0, language + ": " + result.stderr
        lines = result.stdout.splitlines()
        assert len(lines) == 5, language
        classes[language] = top_classes(lines, r"class (\d+) ")
        assert classes[language][0] == expected, language
        assert lines[0].endswith("name_{}".format(expected)), language
    if "c" in runs:
        assert runs["c"].stdout == runs["python"].stdout  # same scores, same format


def test_examples_read_ppm_images(tmp_path):
    folder = case_dir(MOBILENET)
    raw = (folder / "input_0.bin").read_bytes()
    ppm = tmp_path / "image.ppm"
    ppm.write_bytes(b"P6\n# a comment\n224 224\n255\n" + raw)
    runs = [[sys.executable, str(REPO / "examples" / "classify.py")]]
    if (BUILD / "examples" / "classify").exists():
        runs.append([str(BUILD / "examples" / "classify")])
    for command in runs:
        result = subprocess.run(command + [str(folder / "model.tflite"), str(ppm)], env=python_env(),
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        assert top_classes(result.stdout.splitlines(), r"class (\d+) ")[0] == case_json(MOBILENET)["expected_top1"]
    bad = tmp_path / "small.ppm"
    bad.write_bytes(b"P6 2 2 255\n" + bytes(12))
    for command in runs:
        result = subprocess.run(command + [str(folder / "model.tflite"), str(bad)], env=python_env(),
                                capture_output=True, text=True, timeout=300)
        assert result.returncode != 0 and "224" in result.stderr
