/*
 * plugins-print.c: the helper functions that trace-cmd's plugins let a
 * print format call, beyond jbd2's: scsi_trace_parse_cdb (the scsi plugin
 * decodes a SCSI command descriptor block) and xen_hypercall_name (the xen
 * plugin names a hypercall).  lib/event/print-eval.c calls them.
 */
#include <stdint.h>
#include <stdio.h>

#include "tdat-int.h"
#include "event-int.h"

/*
 * The plugin assembles block addresses in an unsigned long from int
 * shifts, so a byte shifted into bit 31 carries its sign into the upper
 * half; these helpers give the same values.
 */
static uint64_t
b24(unsigned char c)
{
	return (uint64_t)(int64_t)(int32_t)((uint32_t)c << 24);
}

static uint64_t
be32s(const unsigned char *p)
{
	return b24(p[0]) | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
}

static uint32_t
be32u(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static uint64_t
be64(const unsigned char *p)
{
	return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 |
	    (uint64_t)p[2] << 40 | (uint64_t)p[3] << 32 | be32s(p + 4);
}

static void
cdb_rw(struct tdat_sbuf *out, uint64_t lba, uint64_t txlen, unsigned protect)
{
	tdat_sb_printf(out, "lba=%llu txlen=%llu protect=%u",
	    (unsigned long long)lba, (unsigned long long)txlen, protect);
}

static void
cdb_rw32(struct tdat_sbuf *out, const unsigned char *cdb, const char *cmd)
{
	unsigned sa = (unsigned)cdb[8] << 8 | cdb[9];

	tdat_sb_printf(out, "%s_32 lba=%llu txlen=%llu protect=%u ei_lbrt=%u",
	    cmd, (unsigned long long)be64(cdb + 12),
	    (unsigned long long)be32s(cdb + 28), cdb[10] >> 5,
	    be32u(cdb + 20));
	if (sa == 0x0d)
		tdat_sb_printf(out, " unmap=%u", cdb[10] >> 3 & 1);
}

static void
cdb_service_action_in(struct tdat_sbuf *out, const unsigned char *cdb)
{
	const char *cmd;

	switch (cdb[1] & 0x1f) {
	case 0x10:
		cmd = "READ_CAPACITY_16";
		break;
	case 0x12:
		cmd = "GET_LBA_STATUS";
		break;
	default:
		tdat_sb_puts(out, "UNKNOWN");
		return;
	}
	tdat_sb_printf(out, "%s lba=%llu alloc_len=%u", cmd,
	    (unsigned long long)be64(cdb + 2), be32u(cdb + 10));
}

static void
cdb_varlen(struct tdat_sbuf *out, const unsigned char *cdb)
{
	switch ((unsigned)cdb[8] << 8 | cdb[9]) {
	case 0x09:
		cdb_rw32(out, cdb, "READ");
		break;
	case 0x0a:
		cdb_rw32(out, cdb, "VERIFY");
		break;
	case 0x0b:
		cdb_rw32(out, cdb, "WRITE");
		break;
	case 0x0d:
		cdb_rw32(out, cdb, "WRITE_SAME");
		break;
	default:
		tdat_sb_putc(out, '-');
		break;
	}
}

/*
 * The operands of a command descriptor block (32 bytes, zero past what the
 * record holds), as the scsi plugin prints them: block address and
 * length of reads and writes, "-" for the commands it does not decode.
 */
void
tdat_scsi_cdb(struct tdat_sbuf *out, const unsigned char *cdb)
{
	switch (cdb[0]) {
	case 0x08:	/* READ_6 */
	case 0x0a:	/* WRITE_6 */
		tdat_sb_printf(out, "lba=%llu txlen=%llu",
		    (unsigned long long)((cdb[1] & 0x1f) << 16 | cdb[2] << 8 |
		    cdb[3]), (unsigned long long)cdb[4]);
		break;
	case 0x28:	/* READ_10 */
	case 0x2f:	/* VERIFY */
	case 0x2a:	/* WRITE_10 */
	case 0x41:	/* WRITE_SAME */
		cdb_rw(out, be32s(cdb + 2), (uint64_t)cdb[7] << 8 | cdb[8],
		    cdb[1] >> 5);
		if (cdb[0] == 0x41)
			tdat_sb_printf(out, " unmap=%u", cdb[1] >> 3 & 1);
		break;
	case 0xa8:	/* READ_12 */
	case 0xaf:	/* VERIFY_12 */
	case 0xaa:	/* WRITE_12 */
		cdb_rw(out, be32s(cdb + 2), be32s(cdb + 6), cdb[1] >> 5);
		break;
	case 0x88:	/* READ_16 */
	case 0x8f:	/* VERIFY_16 */
	case 0x8a:	/* WRITE_16 */
	case 0x93:	/* WRITE_SAME_16 */
		cdb_rw(out, be64(cdb + 2), be32s(cdb + 10), cdb[1] >> 5);
		if (cdb[0] == 0x93)
			tdat_sb_printf(out, " unmap=%u", cdb[1] >> 3 & 1);
		break;
	case 0x42:	/* UNMAP */
		tdat_sb_printf(out, "regions=%u",
		    (((unsigned)cdb[7] << 8 | cdb[8]) - 8) / 16);
		break;
	case 0x9e:	/* SERVICE_ACTION_IN_16 */
		cdb_service_action_in(out, cdb);
		break;
	case 0x7f:	/* VARIABLE_LENGTH_CMD */
		cdb_varlen(out, cdb);
		break;
	default:
		tdat_sb_putc(out, '-');
		break;
	}
}

/* Xen's hypercall numbers, as the xen plugin names them. */
static const char *const hypercalls[] = {
	[0] = "(set_trap_table)", [1] = "(mmu_update)", [2] = "(set_gdt)",
	[3] = "(stack_switch)", [4] = "(set_callbacks)",
	[5] = "(fpu_taskswitch)", [6] = "(sched_op_compat)",
	[7] = "(dom0_op)", [8] = "(set_debugreg)", [9] = "(get_debugreg)",
	[10] = "(update_descriptor)", [12] = "(memory_op)",
	[13] = "(multicall)", [14] = "(update_va_mapping)",
	[15] = "(set_timer_op)", [16] = "(event_channel_op_compat)",
	[17] = "(xen_version)", [18] = "(console_io)",
	[19] = "(physdev_op_compat)", [20] = "(grant_table_op)",
	[21] = "(vm_assist)", [22] = "(update_va_mapping_otherdomain)",
	[23] = "(iret)", [24] = "(vcpu_op)", [25] = "(set_segment_base)",
	[26] = "(mmuext_op)", [27] = "(acm_op)", [28] = "(nmi_op)",
	[29] = "(sched_op)", [30] = "(callback_op)", [31] = "(xenoprof_op)",
	[32] = "(event_channel_op)", [33] = "(physdev_op)", [34] = "(hvm_op)",
	[48] = "(arch_0)", [49] = "(arch_1)", [50] = "(arch_2)",
	[51] = "(arch_3)", [52] = "(arch_4)", [53] = "(arch_5)",
	[54] = "(arch_6)", [55] = "(arch_7)",
};

/* The name of hypercall OP (its argument is an unsigned int), or "". */
const char *
tdat_xen_hypercall(unsigned long long op)
{
	unsigned n = (unsigned)op;

	if (n < sizeof(hypercalls) / sizeof(hypercalls[0]) &&
	    hypercalls[n] != NULL)
		return hypercalls[n];
	return "";
}
