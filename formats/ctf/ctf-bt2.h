/*
 * ctf-bt2.h: libbabeltrace2, loaded only when a CTF directory is read
 * (lib/common/tdat-dl.h; ctf-bt2.c).  ctf-read.c includes this instead of
 * <babeltrace2/babeltrace.h>; its calls go through the table.  The
 * header's static inline functions (bt_field_class_type_is, ...) stay
 * usable as long as they call nothing of the library: one that does
 * names the real symbol and fails the link.
 */
#ifndef TDAT_CTF_BT2_H
#define TDAT_CTF_BT2_H

#include <babeltrace2/babeltrace.h>

#include "tdat-dl.h"

/* Every function of libbabeltrace2 that tdat calls: add a name here and its
 * #define below. */
#define TDAT_BT2_FUNCS(X) \
	X(bt_clock_class_get_name) \
	X(bt_clock_snapshot_get_ns_from_origin) \
	X(bt_clock_snapshot_get_value) \
	X(bt_component_class_sink_create) \
	X(bt_component_class_sink_put_ref) \
	X(bt_component_class_sink_set_finalize_method) \
	X(bt_component_class_sink_set_graph_is_configured_method) \
	X(bt_component_class_sink_set_initialize_method) \
	X(bt_component_sink_borrow_input_port_by_index_const) \
	X(bt_component_source_borrow_output_port_by_index_const) \
	X(bt_component_source_get_output_port_count) \
	X(bt_current_thread_take_error) \
	X(bt_error_borrow_cause_by_index) \
	X(bt_error_cause_get_message) \
	X(bt_error_get_cause_count) \
	X(bt_error_release) \
	X(bt_event_borrow_class_const) \
	X(bt_event_borrow_common_context_field_const) \
	X(bt_event_borrow_payload_field_const) \
	X(bt_event_borrow_specific_context_field_const) \
	X(bt_event_class_borrow_payload_field_class_const) \
	X(bt_event_class_get_id) \
	X(bt_event_class_get_name) \
	X(bt_field_array_borrow_element_field_by_index_const) \
	X(bt_field_array_get_length) \
	X(bt_field_borrow_class_const) \
	X(bt_field_class_array_borrow_element_field_class_const) \
	X(bt_field_class_array_static_get_length) \
	X(bt_field_class_get_type) \
	X(bt_field_class_integer_get_field_value_range) \
	X(bt_field_class_integer_get_preferred_display_base) \
	X(bt_field_class_structure_borrow_member_by_index_const) \
	X(bt_field_class_structure_get_member_count) \
	X(bt_field_class_structure_member_borrow_field_class_const) \
	X(bt_field_class_structure_member_get_name) \
	X(bt_field_get_class_type) \
	X(bt_field_integer_signed_get_value) \
	X(bt_field_integer_unsigned_get_value) \
	X(bt_field_string_get_length) \
	X(bt_field_string_get_value) \
	X(bt_field_structure_borrow_member_field_by_index_const) \
	X(bt_field_structure_borrow_member_field_by_name_const) \
	X(bt_graph_add_sink_component_with_initialize_method_data) \
	X(bt_graph_add_source_component) \
	X(bt_graph_connect_ports) \
	X(bt_graph_create) \
	X(bt_graph_put_ref) \
	X(bt_graph_run_once) \
	X(bt_logging_set_global_level) \
	X(bt_message_discarded_events_get_count) \
	X(bt_message_event_borrow_default_clock_snapshot_const) \
	X(bt_message_event_borrow_event_const) \
	X(bt_message_get_type) \
	X(bt_message_iterator_create_from_sink_component) \
	X(bt_message_iterator_next) \
	X(bt_message_iterator_put_ref) \
	X(bt_message_packet_beginning_borrow_packet_const) \
	X(bt_message_put_ref) \
	X(bt_message_stream_beginning_borrow_stream_const) \
	X(bt_packet_borrow_context_field_const) \
	X(bt_plugin_borrow_source_component_class_by_name_const) \
	X(bt_plugin_find) \
	X(bt_port_get_name) \
	X(bt_self_component_get_data) \
	X(bt_self_component_set_data) \
	X(bt_self_component_sink_add_input_port) \
	X(bt_self_component_sink_borrow_input_port_by_index) \
	X(bt_stream_borrow_class_const) \
	X(bt_stream_borrow_trace_const) \
	X(bt_stream_class_borrow_default_clock_class_const) \
	X(bt_stream_class_borrow_event_class_by_index_const) \
	X(bt_stream_class_borrow_event_common_context_field_class_const) \
	X(bt_stream_class_get_event_class_count) \
	X(bt_stream_class_get_id) \
	X(bt_trace_borrow_environment_entry_value_by_name_const) \
	X(bt_value_array_append_string_element) \
	X(bt_value_get_type) \
	X(bt_value_integer_signed_get) \
	X(bt_value_integer_unsigned_get) \
	X(bt_value_map_create) \
	X(bt_value_map_insert_empty_array_entry) \
	X(bt_value_put_ref) \
	X(bt_value_string_get)

/* Their addresses, typed by the real declarations. */
struct tdat_bt2_fns {
#define TDAT_BT2_MEMBER(f) __typeof__(f) *f;
	TDAT_BT2_FUNCS(TDAT_BT2_MEMBER)
#undef TDAT_BT2_MEMBER
};
extern struct tdat_bt2_fns tdat_bt2_fns;
extern struct tdat_dl tdat_bt2_dl;

/* Load libbabeltrace2 (CTF directories): 0, or TDAT_EIO with *e saying
 * why not.  Each entry point that reads such a directory calls it first. */
int tdat_bt2_load(struct tdat_err *e);

/* The table, loaded if no entry point did (else one line, exit 2). */
static inline const struct tdat_bt2_fns *
tdat_bt2(void)
{
	if (!tdat_dl_ready(&tdat_bt2_dl))
		tdat_dl_need(&tdat_bt2_dl);
	return &tdat_bt2_fns;
}

/* The call sites unchanged: each name calls through the table. */
#ifndef TDAT_BT2_LOADER
#define bt_clock_class_get_name (*tdat_bt2()->bt_clock_class_get_name)
#define bt_clock_snapshot_get_ns_from_origin (*tdat_bt2()->bt_clock_snapshot_get_ns_from_origin)
#define bt_clock_snapshot_get_value (*tdat_bt2()->bt_clock_snapshot_get_value)
#define bt_component_class_sink_create (*tdat_bt2()->bt_component_class_sink_create)
#define bt_component_class_sink_put_ref (*tdat_bt2()->bt_component_class_sink_put_ref)
#define bt_component_class_sink_set_finalize_method (*tdat_bt2()->bt_component_class_sink_set_finalize_method)
#define bt_component_class_sink_set_graph_is_configured_method (*tdat_bt2()->bt_component_class_sink_set_graph_is_configured_method)
#define bt_component_class_sink_set_initialize_method (*tdat_bt2()->bt_component_class_sink_set_initialize_method)
#define bt_component_sink_borrow_input_port_by_index_const (*tdat_bt2()->bt_component_sink_borrow_input_port_by_index_const)
#define bt_component_source_borrow_output_port_by_index_const (*tdat_bt2()->bt_component_source_borrow_output_port_by_index_const)
#define bt_component_source_get_output_port_count (*tdat_bt2()->bt_component_source_get_output_port_count)
#define bt_current_thread_take_error (*tdat_bt2()->bt_current_thread_take_error)
#define bt_error_borrow_cause_by_index (*tdat_bt2()->bt_error_borrow_cause_by_index)
#define bt_error_cause_get_message (*tdat_bt2()->bt_error_cause_get_message)
#define bt_error_get_cause_count (*tdat_bt2()->bt_error_get_cause_count)
#define bt_error_release (*tdat_bt2()->bt_error_release)
#define bt_event_borrow_class_const (*tdat_bt2()->bt_event_borrow_class_const)
#define bt_event_borrow_common_context_field_const (*tdat_bt2()->bt_event_borrow_common_context_field_const)
#define bt_event_borrow_payload_field_const (*tdat_bt2()->bt_event_borrow_payload_field_const)
#define bt_event_borrow_specific_context_field_const (*tdat_bt2()->bt_event_borrow_specific_context_field_const)
#define bt_event_class_borrow_payload_field_class_const (*tdat_bt2()->bt_event_class_borrow_payload_field_class_const)
#define bt_event_class_get_id (*tdat_bt2()->bt_event_class_get_id)
#define bt_event_class_get_name (*tdat_bt2()->bt_event_class_get_name)
#define bt_field_array_borrow_element_field_by_index_const (*tdat_bt2()->bt_field_array_borrow_element_field_by_index_const)
#define bt_field_array_get_length (*tdat_bt2()->bt_field_array_get_length)
#define bt_field_borrow_class_const (*tdat_bt2()->bt_field_borrow_class_const)
#define bt_field_class_array_borrow_element_field_class_const (*tdat_bt2()->bt_field_class_array_borrow_element_field_class_const)
#define bt_field_class_array_static_get_length (*tdat_bt2()->bt_field_class_array_static_get_length)
#define bt_field_class_get_type (*tdat_bt2()->bt_field_class_get_type)
#define bt_field_class_integer_get_field_value_range (*tdat_bt2()->bt_field_class_integer_get_field_value_range)
#define bt_field_class_integer_get_preferred_display_base (*tdat_bt2()->bt_field_class_integer_get_preferred_display_base)
#define bt_field_class_structure_borrow_member_by_index_const (*tdat_bt2()->bt_field_class_structure_borrow_member_by_index_const)
#define bt_field_class_structure_get_member_count (*tdat_bt2()->bt_field_class_structure_get_member_count)
#define bt_field_class_structure_member_borrow_field_class_const (*tdat_bt2()->bt_field_class_structure_member_borrow_field_class_const)
#define bt_field_class_structure_member_get_name (*tdat_bt2()->bt_field_class_structure_member_get_name)
#define bt_field_get_class_type (*tdat_bt2()->bt_field_get_class_type)
#define bt_field_integer_signed_get_value (*tdat_bt2()->bt_field_integer_signed_get_value)
#define bt_field_integer_unsigned_get_value (*tdat_bt2()->bt_field_integer_unsigned_get_value)
#define bt_field_string_get_length (*tdat_bt2()->bt_field_string_get_length)
#define bt_field_string_get_value (*tdat_bt2()->bt_field_string_get_value)
#define bt_field_structure_borrow_member_field_by_index_const (*tdat_bt2()->bt_field_structure_borrow_member_field_by_index_const)
#define bt_field_structure_borrow_member_field_by_name_const (*tdat_bt2()->bt_field_structure_borrow_member_field_by_name_const)
#define bt_graph_add_sink_component_with_initialize_method_data (*tdat_bt2()->bt_graph_add_sink_component_with_initialize_method_data)
#define bt_graph_add_source_component (*tdat_bt2()->bt_graph_add_source_component)
#define bt_graph_connect_ports (*tdat_bt2()->bt_graph_connect_ports)
#define bt_graph_create (*tdat_bt2()->bt_graph_create)
#define bt_graph_put_ref (*tdat_bt2()->bt_graph_put_ref)
#define bt_graph_run_once (*tdat_bt2()->bt_graph_run_once)
#define bt_logging_set_global_level (*tdat_bt2()->bt_logging_set_global_level)
#define bt_message_discarded_events_get_count (*tdat_bt2()->bt_message_discarded_events_get_count)
#define bt_message_event_borrow_default_clock_snapshot_const (*tdat_bt2()->bt_message_event_borrow_default_clock_snapshot_const)
#define bt_message_event_borrow_event_const (*tdat_bt2()->bt_message_event_borrow_event_const)
#define bt_message_get_type (*tdat_bt2()->bt_message_get_type)
#define bt_message_iterator_create_from_sink_component (*tdat_bt2()->bt_message_iterator_create_from_sink_component)
#define bt_message_iterator_next (*tdat_bt2()->bt_message_iterator_next)
#define bt_message_iterator_put_ref (*tdat_bt2()->bt_message_iterator_put_ref)
#define bt_message_packet_beginning_borrow_packet_const (*tdat_bt2()->bt_message_packet_beginning_borrow_packet_const)
#define bt_message_put_ref (*tdat_bt2()->bt_message_put_ref)
#define bt_message_stream_beginning_borrow_stream_const (*tdat_bt2()->bt_message_stream_beginning_borrow_stream_const)
#define bt_packet_borrow_context_field_const (*tdat_bt2()->bt_packet_borrow_context_field_const)
#define bt_plugin_borrow_source_component_class_by_name_const (*tdat_bt2()->bt_plugin_borrow_source_component_class_by_name_const)
#define bt_plugin_find (*tdat_bt2()->bt_plugin_find)
#define bt_port_get_name (*tdat_bt2()->bt_port_get_name)
#define bt_self_component_get_data (*tdat_bt2()->bt_self_component_get_data)
#define bt_self_component_set_data (*tdat_bt2()->bt_self_component_set_data)
#define bt_self_component_sink_add_input_port (*tdat_bt2()->bt_self_component_sink_add_input_port)
#define bt_self_component_sink_borrow_input_port_by_index (*tdat_bt2()->bt_self_component_sink_borrow_input_port_by_index)
#define bt_stream_borrow_class_const (*tdat_bt2()->bt_stream_borrow_class_const)
#define bt_stream_borrow_trace_const (*tdat_bt2()->bt_stream_borrow_trace_const)
#define bt_stream_class_borrow_default_clock_class_const (*tdat_bt2()->bt_stream_class_borrow_default_clock_class_const)
#define bt_stream_class_borrow_event_class_by_index_const (*tdat_bt2()->bt_stream_class_borrow_event_class_by_index_const)
#define bt_stream_class_borrow_event_common_context_field_class_const (*tdat_bt2()->bt_stream_class_borrow_event_common_context_field_class_const)
#define bt_stream_class_get_event_class_count (*tdat_bt2()->bt_stream_class_get_event_class_count)
#define bt_stream_class_get_id (*tdat_bt2()->bt_stream_class_get_id)
#define bt_trace_borrow_environment_entry_value_by_name_const (*tdat_bt2()->bt_trace_borrow_environment_entry_value_by_name_const)
#define bt_value_array_append_string_element (*tdat_bt2()->bt_value_array_append_string_element)
#define bt_value_get_type (*tdat_bt2()->bt_value_get_type)
#define bt_value_integer_signed_get (*tdat_bt2()->bt_value_integer_signed_get)
#define bt_value_integer_unsigned_get (*tdat_bt2()->bt_value_integer_unsigned_get)
#define bt_value_map_create (*tdat_bt2()->bt_value_map_create)
#define bt_value_map_insert_empty_array_entry (*tdat_bt2()->bt_value_map_insert_empty_array_entry)
#define bt_value_put_ref (*tdat_bt2()->bt_value_put_ref)
#define bt_value_string_get (*tdat_bt2()->bt_value_string_get)
#endif

#endif
