"""Shared setup of the protobuf differential tests (test_protobuf.py, test_protojson.py,
test_protobuf_framing.py): a .proto compiled by protoc into a descriptor set that polycodec
reads (--schema) and libprotobuf (Debian's python3-protobuf) loads."""
import os
import shutil
import subprocess
import tempfile
import unittest

import common

try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    HAVE_PB = True
except ImportError:  # pragma: no cover
    HAVE_PB = False

CONFORMANCE_PROTOS = ("test_messages_proto3.proto", "test_messages_proto2.proto")


class ProtocSchema:
    """Mixin of a unittest.TestCase: setUpClass calls compile(); tearDownClass removes the
    temporary folder."""

    @classmethod
    def compile(cls, prefix, proto_name, proto_text, conformance=None):
        """Writes proto_text as PROTO_NAME in a new temporary folder cls.tmp (with the
        conformance corpus's test_messages_proto{3,2}.proto under google/protobuf when
        `conformance` names its src folder), compiles it with protoc into cls.desc and loads
        that into cls.pool and cls.factory. Returns the .proto's path. Skips the class when
        protoc is not installed."""
        protoc = shutil.which("protoc")
        if protoc is None:
            raise unittest.SkipTest("protoc is not installed (apt-get install protobuf-compiler)")
        common.polycodec_bin()
        cls.tmp = tempfile.mkdtemp(prefix=prefix)
        includes = ["-I" + cls.tmp]
        if conformance:
            gdir = os.path.join(cls.tmp, "google", "protobuf")
            os.makedirs(gdir)
            for name in CONFORMANCE_PROTOS:
                shutil.copy(os.path.join(conformance, "google", "protobuf", name), gdir)
            includes.append("-I/usr/include")
        proto = os.path.join(cls.tmp, proto_name)
        with open(proto, "w") as f:
            f.write(proto_text)
        cls.desc = os.path.join(cls.tmp, os.path.splitext(proto_name)[0] + ".binpb")
        subprocess.run([protoc, *includes, "--include_imports",
                        "--descriptor_set_out=" + cls.desc, proto], check=True)
        with open(cls.desc, "rb") as f:
            fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
        cls.pool = descriptor_pool.DescriptorPool()
        for fp in fds.file:
            cls.pool.Add(fp)
        cls.factory = message_factory.MessageFactory(cls.pool)
        return proto

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(getattr(cls, "tmp", "/nonexistent"), ignore_errors=True)
