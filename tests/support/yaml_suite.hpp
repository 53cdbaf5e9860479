// The layout of the yaml-test-suite corpus (yaml/data of the conformance corpus), shared by
// the suite's conformance test (yaml_test.cpp) and the libfyaml oracle test.
#pragma once

#include <algorithm>
#include <filesystem>
#include <vector>

namespace polycodec::test {

/// The case folders of the suite at `dir`, sorted: every folder holding an in.yaml, one
/// level down or two (a case with several documents has numbered sub-folders).
inline std::vector<std::filesystem::path> yaml_suite_cases(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> folders;
    for (const auto& id : std::filesystem::directory_iterator(dir)) {
        if (std::filesystem::exists(id.path() / "in.yaml")) {
            folders.push_back(id.path());
        } else {
            for (const auto& sub : std::filesystem::directory_iterator(id.path())) {
                if (std::filesystem::exists(sub.path() / "in.yaml")) {
                    folders.push_back(sub.path());
                }
            }
        }
    }
    std::sort(folders.begin(), folders.end());
    return folders;
}

}  // namespace polycodec::test
