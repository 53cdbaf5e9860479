#include "peer_protojson.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <memory>

#include "peer_keep.hpp"

namespace polycodec::loadtest {

bool protojson_libprotobuf_rows(const std::string& descriptor_set, const std::string& type,
                                const std::string& json, const peer_runner& run) {
    namespace gp = google::protobuf;
    gp::FileDescriptorSet set;
    if (!set.ParseFromString(descriptor_set)) {
        std::fprintf(stderr, "peers: protojson: the descriptor set does not parse\n");
        return false;
    }
    gp::DescriptorPool pool;
    for (const auto& file : set.file()) {
        if (pool.BuildFile(file) == nullptr) {
            std::fprintf(stderr, "peers: protojson: %s does not build\n", file.name().c_str());
            return false;
        }
    }
    const gp::Descriptor* d = pool.FindMessageTypeByName(type);
    if (d == nullptr) {
        std::fprintf(stderr, "peers: protojson: no message %s\n", type.c_str());
        return false;
    }
    gp::DynamicMessageFactory factory(&pool);
    std::unique_ptr<gp::Message> msg(factory.GetPrototype(d)->New());
    if (!gp::util::JsonStringToMessage(json, msg.get()).ok()) {
        std::fprintf(stderr, "peers: protojson: libprotobuf does not parse our output\n");
        return false;
    }
    std::string out;
    (void)gp::util::MessageToJsonString(*msg, &out);
    run("protojson", "decode", "libprotobuf JsonStringToMessage", json.size(), [&] {
        std::unique_ptr<gp::Message> m(factory.GetPrototype(d)->New());
        keep(gp::util::JsonStringToMessage(json, m.get()).ok());
    });
    run("protojson", "encode", "libprotobuf MessageToJsonString", json.size(), [&] {
        out.clear();
        keep(gp::util::MessageToJsonString(*msg, &out).ok());
    });
    return true;
}

}  // namespace polycodec::loadtest
