#include "proto_compiler.hpp"

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include <filesystem>
#include <set>
#include <vector>

namespace polycodec::server {
namespace {

namespace gp = google::protobuf;

// Collects libprotobuf's errors with their file, line and column (1-based).
class error_collector : public gp::compiler::MultiFileErrorCollector {
public:
    void AddError(const std::string& filename, int line, int column,
                  const std::string& message) override {
        if (!first.empty()) {
            return;
        }
        first = filename + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) +
                ": " + message;
    }
    std::string first;
};

void add_file(const gp::FileDescriptor* f, std::set<std::string>& seen, gp::FileDescriptorSet& set) {
    if (!seen.insert(f->name()).second) {
        return;
    }
    for (int i = 0; i < f->dependency_count(); ++i) {
        add_file(f->dependency(i), seen, set);
    }
    gp::FileDescriptorProto* p = set.add_file();
    f->CopyTo(p);
    f->CopyJsonNameTo(p);
}

}  // namespace

result<std::string> compile_proto_file(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path file(path);
    gp::compiler::DiskSourceTree tree;
    std::string dir = file.parent_path().empty() ? "." : file.parent_path().string();
    tree.MapPath("", dir);
    for (const char* system : {"/usr/include", "/usr/local/include"}) {
        if (fs::exists(fs::path(system) / "google/protobuf/descriptor.proto")) {
            tree.MapPath("", system);
        }
    }
    error_collector errors;
    gp::compiler::Importer importer(&tree, &errors);
    const gp::FileDescriptor* fd = importer.Import(file.filename().string());
    if (fd == nullptr) {
        std::string why = errors.first.empty() ? path + ": cannot be parsed" : errors.first;
        if (!errors.first.empty() && errors.first.rfind(file.filename().string(), 0) == 0) {
            why = (fs::path(dir) / errors.first).string();
        }
        return fail(make_error(errc::invalid_option, why));
    }
    gp::FileDescriptorSet set;
    std::set<std::string> seen;
    add_file(fd, seen, set);
    std::string out;
    if (!set.SerializeToString(&out)) {
        return fail(make_error(errc::invalid_option, path + ": the descriptor set does not serialize"));
    }
    return out;
}

}  // namespace polycodec::server
