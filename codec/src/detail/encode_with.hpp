#pragma once
// The encode function of a format whose writer is a class constructed on the output and the
// options, with run(root) writing the whole document (smile, pickle): codec_functions take
// encode_with<the_writer> instead of a function of their own.

#include "polycodec/buffer.hpp"
#include "polycodec/document.hpp"
#include "polycodec/options.hpp"
#include "polycodec/result.hpp"

namespace polycodec::detail {

template <class Writer>
result<void> encode_with(const document& doc, output_buffer& out, const encode_options& opt) {
    Writer writer(out, opt);
    return writer.run(doc.root());
}

}  // namespace polycodec::detail
