// The inputs of `edgerun run` and `edgerun bench`: --resize, --input files and seeded random
// values, in three steps so that a caller can time allocation apart from reading and filling.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/subgraph.h"
#include "edgerun/status.h"
#include "tools/tensor_io.h"

namespace edgerun::tools {

// The position of the subgraph input called `name`, or `name` read as a position; -1 if neither.
int FindInput(Subgraph& sg, const std::string& name);

// Reads each input file as raw bytes or .npy (a string input's lines are split by ResizeInputs,
// once the model says which inputs are strings).
Status ReadInputFiles(const std::vector<std::string>& paths, std::vector<TensorFile>* files);

// Gives the inputs their shapes: the explicit resizes first, then what each file implies (a .npy
// its shape, raw bytes their size, text one string a line); `files` as ReadInputFiles made them.
Status ResizeInputs(const std::string& model, const std::vector<std::pair<std::string, Shape>>& resizes,
                    const std::vector<std::string>& paths, std::vector<TensorFile>& files, Subgraph& sg);

// Writes every input's values (after AllocateTensors): input k from files[k], the rest seeded
// random values (FillRandom with seed * 1000003 + k; strings: "edgerun").
Status FillInputs(const std::string& model, const std::vector<std::string>& paths, const std::vector<TensorFile>& files,
                  uint64_t seed, Subgraph& sg);

}  // namespace edgerun::tools
