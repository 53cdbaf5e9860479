#pragma once

namespace polycodec::loadtest {

/// `polycodec-loadtest stream --target HOST:PORT ...`: one large record stream through
/// POST /transcode?stream=true (DESIGN section 12); 0 when the answer was complete and held
/// every record.
int run_stream_load(int argc, char** argv);

}  // namespace polycodec::loadtest
