"""A strict gRPC reflection client, as grpcurl or Python tooling would be.

Knows nothing of the server's protos: only the reflection protocol (a FileDescriptorSet with
grpc/reflection/v1/reflection.proto, argument 2). Every other descriptor comes from the
server over reflection, into a protobuf DescriptorPool, which refuses files whose imports
are missing or whose types do not resolve. Then it describes the services and calls
TicketService dynamically. Prints one JSON object.

usage: TOKEN=<access token> strict_reflection_client.py ADDRESS REFLECTION_SET REFLECTION_PACKAGE [FILE,FILE...]
"""
import json
import os
import sys

import grpc
from google.protobuf import descriptor_database, descriptor_pb2, descriptor_pool, json_format, message_factory


def message_class(descriptor):
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(descriptor.file.pool).GetPrototype(descriptor)


def reflection_messages(set_path, package):
    file_set = descriptor_pb2.FileDescriptorSet.FromString(open(set_path, "rb").read())
    pool = descriptor_pool.DescriptorPool()
    for file in file_set.file:
        pool.Add(file)
    return (
        message_class(pool.FindMessageTypeByName(f"{package}.ServerReflectionRequest")),
        message_class(pool.FindMessageTypeByName(f"{package}.ServerReflectionResponse")),
    )


class ReflectionDatabase(descriptor_database.DescriptorDatabase):
    """Files fetched over reflection on demand (the approach of grpcio-reflection's client)."""

    def __init__(self, channel, package, request_type, response_type):
        super().__init__()
        self._request_type = request_type
        self._call = channel.stream_stream(
            f"/{package}.ServerReflection/ServerReflectionInfo",
            request_serializer=request_type.SerializeToString,
            response_deserializer=response_type.FromString,
        )
        self._names = set()

    def ask(self, **request):
        (response,) = list(self._call(iter([self._request_type(**request)]), timeout=10))
        if response.HasField("error_response"):
            raise KeyError(response.error_response.error_message)
        return response

    def _add(self, response):
        for serialized in response.file_descriptor_response.file_descriptor_proto:
            file = descriptor_pb2.FileDescriptorProto.FromString(serialized)
            if file.name not in self._names:
                self._names.add(file.name)
                self.Add(file)

    def services(self):
        return [service.name for service in self.ask(list_services="").list_services_response.service]

    def FindFileByName(self, name):
        if name not in self._names:
            self._add(self.ask(file_by_filename=name))
        return super().FindFileByName(name)

    def FindFileContainingSymbol(self, symbol):
        try:
            return super().FindFileContainingSymbol(symbol)
        except KeyError:
            self._add(self.ask(file_containing_symbol=symbol))
            return super().FindFileContainingSymbol(symbol)


def describe_type(descriptor, seen):
    """Resolves a message and every type its fields use, as `describe` prints them."""
    if descriptor.full_name in seen:
        return
    seen.add(descriptor.full_name)
    for field in descriptor.fields:
        if field.message_type is not None:
            describe_type(field.message_type, seen)
        if field.enum_type is not None:
            seen.add(field.enum_type.full_name)


def main():
    address, set_path, package = sys.argv[1:4]
    token = os.environ["TOKEN"]
    files = [name for name in (sys.argv[4] if len(sys.argv) > 4 else "").split(",") if name]
    request_type, response_type = reflection_messages(set_path, package)
    channel = grpc.insecure_channel(address)
    database = ReflectionDatabase(channel, package, request_type, response_type)
    pool = descriptor_pool.DescriptorPool(database)
    out = {"services": sorted(database.services()), "described": {}}

    for name in out["services"]:
        service = pool.FindServiceByName(name)
        seen = set()
        for method in service.methods:
            describe_type(method.input_type, seen)
            describe_type(method.output_type, seen)
        out["described"][name] = {
            "file": service.file.name,
            "imports": [dependency.name for dependency in service.file.dependencies],
            "methods": {m.name: [m.input_type.full_name, m.output_type.full_name] for m in service.methods},
            "types": sorted(seen),
        }

    # Each file by name, built with everything it imports.
    out["files"] = {name: [dependency.name for dependency in pool.FindFileByName(name).dependencies] for name in files}

    if "ticketing.v1.TicketService" in out["services"]:
        metadata = [("authorization", f"Bearer {token}")]

        def call(service, method, request):
            method_descriptor = pool.FindServiceByName(service).FindMethodByName(method)
            request_class = message_class(method_descriptor.input_type)
            response_class = message_class(method_descriptor.output_type)
            stub = channel.unary_unary(
                f"/{service}/{method}",
                request_serializer=request_class.SerializeToString,
                response_deserializer=response_class.FromString,
            )
            response = stub(json_format.ParseDict(request, request_class()), metadata=metadata, timeout=10)
            return json_format.MessageToDict(response, preserving_proto_field_name=True)

        event = call("ticketing.v1.EventService", "CreateEvent", {"event": {"name": "Described by reflection"}})
        created = call(
            "ticketing.v1.TicketService",
            "CreateTicket",
            {"event_id": event["guid"], "ticket": {"name": "Dynamic ticket", "vat_percentage": "21"}},
        )
        out["created"] = created
        out["read"] = call("ticketing.v1.TicketService", "GetTicket", {"guid": created["guid"]})
        try:
            call("ticketing.v1.TicketService", "GetTicket", {"guid": "00000000-0000-4000-8000-000000000000"})
        except grpc.RpcError as err:
            out["missing"] = err.code().name

    channel.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
