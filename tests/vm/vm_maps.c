/* Maps of the test VM: ARRAY, PERCPU_ARRAY (one copy per simulated CPU),
 * HASH (exact-key table), PROG_ARRAY (VM program indexes), and the RINGBUF
 * and PERF_EVENT_ARRAY output sinks whose records tests read back. The
 * gs_vm_map_* functions are what userspace would do through bpf(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vm_priv.h"

#define PAGE_SIZE 4096u
#define PCPU_MIN_UNIT_SIZE (32u << 10) /* the kernel's cap on a per-CPU value */

static const char *type_name(enum bpf_map_type type)
{
	switch (type) {
	case BPF_MAP_TYPE_ARRAY: return "ARRAY";
	case BPF_MAP_TYPE_PERCPU_ARRAY: return "PERCPU_ARRAY";
	case BPF_MAP_TYPE_HASH: return "HASH";
	case BPF_MAP_TYPE_PROG_ARRAY: return "PROG_ARRAY";
	case BPF_MAP_TYPE_RINGBUF: return "RINGBUF";
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY: return "PERF_EVENT_ARRAY";
	default: return "unsupported";
	}
}

/* The kernel's map_alloc_check for the types the VM has; NULL if fine. */
static const char *shape_error(enum bpf_map_type type, uint32_t key_size, uint32_t value_size,
			       uint32_t max_entries)
{
	switch (type) {
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		if (value_size > PCPU_MIN_UNIT_SIZE)
			return "a per-CPU value is at most 32768 bytes";
		/* fallthrough */
	case BPF_MAP_TYPE_ARRAY:
		if (key_size != 4 || value_size == 0 || max_entries == 0)
			return "an array needs a 4-byte key, a value, and entries";
		return NULL;
	case BPF_MAP_TYPE_HASH:
		if (key_size == 0 || value_size == 0 || max_entries == 0)
			return "a hash needs a key, a value, and entries";
		return NULL;
	case BPF_MAP_TYPE_PROG_ARRAY:
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
		if (key_size != 4 || value_size != 4)
			return "keys and values are u32";
		if (type == BPF_MAP_TYPE_PROG_ARRAY && max_entries == 0)
			return "a program array needs entries";
		return NULL;
	case BPF_MAP_TYPE_RINGBUF:
		if (key_size || value_size)
			return "a ring buffer has no key or value";
		if (max_entries && (max_entries % PAGE_SIZE || (max_entries & (max_entries - 1))))
			return "a ring buffer's size is a power of 2 and a multiple of 4096 "
			       "(or 0 here: unbounded)";
		return NULL;
	default:
		return "the test VM does not have this map type";
	}
}

static int alloc_contents(struct gs_vm_map *m)
{
	if (m->type == BPF_MAP_TYPE_ARRAY || m->type == BPF_MAP_TYPE_PERCPU_ARRAY) {
		size_t n = (size_t)m->max_entries * m->ncopies;

		if (n && (size_t)m->value_size > SIZE_MAX / n)
			return -E2BIG;
		m->values = calloc(n, m->value_size);
		return m->values ? 0 : -ENOMEM;
	}
	if (m->type == BPF_MAP_TYPE_PROG_ARRAY) {
		m->progs = malloc(m->max_entries * sizeof(*m->progs));
		if (!m->progs)
			return -ENOMEM;
		for (uint32_t i = 0; i < m->max_entries; i++)
			m->progs[i] = -1;
	}
	return 0;
}

int gs_vm_add_map(struct gs_vm *vm, enum bpf_map_type type, const char *name,
		  uint32_t key_size, uint32_t value_size, uint32_t max_entries,
		  struct gs_error *err)
{
	const char *why = shape_error(type, key_size, value_size, max_entries);
	struct gs_vm_map *m;
	int ret;

	name = name ? name : "";
	if (why)
		return gs_errorf(err, -EINVAL, "map '%s' (%s, key %u, value %u, %u entries): %s",
				 name, type_name(type), key_size, value_size, max_entries, why);
	if (vm->ncpus == 0 || vm->ncpus > GS_VM_MAX_CPUS)
		return gs_errorf(err, -EINVAL, "vm->ncpus is %u; the VM simulates 1 to %d CPUs",
				 vm->ncpus, GS_VM_MAX_CPUS);
	if (vm->nmaps == vm->maps_cap) {
		size_t cap = vm->maps_cap ? vm->maps_cap * 2 : 8;
		struct gs_vm_map *grown = realloc(vm->maps, cap * sizeof(*grown));

		if (!grown)
			return gs_errorf(err, -ENOMEM, "out of memory adding map '%s'", name);
		vm->maps = grown;
		vm->maps_cap = cap;
	}
	m = &vm->maps[vm->nmaps];
	memset(m, 0, sizeof(*m));
	m->type = type;
	strncpy(m->name, name, sizeof(m->name) - 1);
	m->key_size = key_size;
	m->value_size = value_size;
	m->max_entries = type == BPF_MAP_TYPE_PERF_EVENT_ARRAY && !max_entries ? vm->ncpus
									       : max_entries;
	m->ncopies = type == BPF_MAP_TYPE_PERCPU_ARRAY ? vm->ncpus : 1;
	ret = alloc_contents(m);
	if (ret)
		return gs_errorf(err, ret, "no memory for the %u entries of map '%s'",
				 max_entries, name);
	return (int)vm->nmaps++;
}

struct gs_vm_map *gs_vm_get_map(struct gs_vm *vm, uint32_t map)
{
	return map < vm->nmaps ? &vm->maps[map] : NULL;
}

int gs_vm_map_fd(uint32_t map)
{
	return GS_VM_FD_BASE + (int)map;
}

struct gs_vm_map *vm_map_by_fd(struct gs_vm *vm, int32_t fd, uint32_t *id)
{
	if (fd < GS_VM_FD_BASE || (size_t)(fd - GS_VM_FD_BASE) >= vm->nmaps)
		return NULL;
	*id = (uint32_t)(fd - GS_VM_FD_BASE);
	return &vm->maps[*id];
}

static struct gs_vm_hash_entry *hash_find(struct gs_vm_map *m, const void *key)
{
	for (uint32_t i = 0; i < m->nentries; i++)
		if (memcmp(m->entries[i].key, key, m->key_size) == 0)
			return &m->entries[i];
	return NULL;
}

uint8_t *vm_map_elem(struct gs_vm_map *m, const void *key, uint32_t cpu)
{
	struct gs_vm_hash_entry *e;
	uint32_t index;

	switch (m->type) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		memcpy(&index, key, sizeof(index));
		if (index >= m->max_entries || cpu >= m->ncopies)
			return NULL;
		return m->values + ((size_t)index * m->ncopies + cpu) * m->value_size;
	case BPF_MAP_TYPE_HASH:
		e = hash_find(m, key);
		return e ? e->value : NULL;
	default:
		return NULL;
	}
}

void *gs_vm_map_lookup(struct gs_vm *vm, uint32_t map, const void *key, uint32_t cpu)
{
	struct gs_vm_map *m = gs_vm_get_map(vm, map);

	if (!m)
		return NULL;
	return vm_map_elem(m, key, m->type == BPF_MAP_TYPE_PERCPU_ARRAY ? cpu : 0);
}

static int hash_insert(struct gs_vm_map *m, const void *key, const void *value,
		       struct gs_error *err)
{
	struct gs_vm_hash_entry *e;

	if (m->nentries == m->max_entries)
		return gs_errorf(err, -E2BIG, "map '%s' is full (%u entries)", m->name,
				 m->max_entries);
	if (m->nentries == m->entries_cap) {
		uint32_t cap = m->entries_cap ? m->entries_cap * 2 : 8;
		struct gs_vm_hash_entry *grown = realloc(m->entries, cap * sizeof(*grown));

		if (!grown)
			return gs_errorf(err, -ENOMEM, "out of memory growing map '%s'", m->name);
		m->entries = grown;
		m->entries_cap = cap;
	}
	e = &m->entries[m->nentries];
	e->key = malloc(m->key_size);
	e->value = malloc(m->value_size);
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		return gs_errorf(err, -ENOMEM, "out of memory inserting into map '%s'", m->name);
	}
	memcpy(e->key, key, m->key_size);
	memcpy(e->value, value, m->value_size);
	m->nentries++;
	return 0;
}

static int prog_slot(struct gs_vm *vm, struct gs_vm_map *m, const void *key, const void *value,
		     struct gs_error *err)
{
	uint32_t index, prog;

	memcpy(&index, key, sizeof(index));
	if (index >= m->max_entries)
		return gs_errorf(err, -E2BIG, "slot %u is past the %u slots of map '%s'", index,
				 m->max_entries, m->name);
	if (!value) {
		if (m->progs[index] < 0)
			return gs_errorf(err, -ENOENT, "slot %u of map '%s' is empty", index,
					 m->name);
		m->progs[index] = -1;
		return 0;
	}
	memcpy(&prog, value, sizeof(prog));
	if (prog >= vm->nprogs)
		return gs_errorf(err, -EINVAL, "map '%s' slot %u: no program %u (%zu loaded)",
				 m->name, index, prog, vm->nprogs);
	m->progs[index] = (int32_t)prog;
	return 0;
}

int gs_vm_map_update(struct gs_vm *vm, uint32_t map, const void *key, const void *value,
		     struct gs_error *err)
{
	struct gs_vm_map *m = gs_vm_get_map(vm, map);
	uint8_t *v;

	if (!m)
		return gs_errorf(err, -EINVAL, "no map %u (%zu created)", map, vm->nmaps);
	switch (m->type) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		for (uint32_t cpu = 0; cpu < m->ncopies; cpu++) {
			v = vm_map_elem(m, key, cpu);
			if (!v)
				return gs_errorf(err, -E2BIG, "key is past the %u entries "
						 "of map '%s'", m->max_entries, m->name);
			memcpy(v, value, m->value_size);
		}
		return 0;
	case BPF_MAP_TYPE_HASH:
		v = vm_map_elem(m, key, 0);
		if (!v)
			return hash_insert(m, key, value, err);
		memcpy(v, value, m->value_size);
		return 0;
	case BPF_MAP_TYPE_PROG_ARRAY:
		return prog_slot(vm, m, key, value, err);
	default:
		return gs_errorf(err, -EINVAL, "map '%s' (%s) has no values to set", m->name,
				 type_name(m->type));
	}
}

int gs_vm_map_delete(struct gs_vm *vm, uint32_t map, const void *key, struct gs_error *err)
{
	struct gs_vm_map *m = gs_vm_get_map(vm, map);
	struct gs_vm_hash_entry *e;

	if (!m)
		return gs_errorf(err, -EINVAL, "no map %u (%zu created)", map, vm->nmaps);
	if (m->type == BPF_MAP_TYPE_PROG_ARRAY)
		return prog_slot(vm, m, key, NULL, err);
	if (m->type != BPF_MAP_TYPE_HASH)
		return gs_errorf(err, -EINVAL, "map '%s' (%s) has no entries to delete", m->name,
				 type_name(m->type));
	e = hash_find(m, key);
	if (!e)
		return gs_errorf(err, -ENOENT, "map '%s' has no such key", m->name);
	free(e->key);
	free(e->value);
	memmove(e, e + 1, (size_t)(m->entries + m->nentries - (e + 1)) * sizeof(*e));
	m->nentries--;
	return 0;
}

uint64_t gs_vm_map_sum_u64(struct gs_vm *vm, uint32_t map, const void *key, uint32_t off)
{
	struct gs_vm_map *m = gs_vm_get_map(vm, map);
	uint64_t sum = 0, v;

	if (!m || (uint64_t)off + sizeof(v) > m->value_size)
		return 0;
	for (uint32_t cpu = 0; cpu < m->ncopies; cpu++) {
		const uint8_t *value = vm_map_elem(m, key, cpu);

		if (!value)
			return 0;
		memcpy(&v, value + off, sizeof(v));
		sum += v;
	}
	return sum;
}

void gs_vm_fail_lookups(struct gs_vm *vm, uint32_t map, bool on)
{
	struct gs_vm_map *m = gs_vm_get_map(vm, map);

	if (m)
		m->fail_lookup = on;
}

int vm_add_record(struct gs_vm *vm, uint32_t map, uint64_t flags, const uint8_t *data,
		  uint32_t size)
{
	struct gs_vm_record *r;

	if (vm->nrecords == vm->records_cap) {
		size_t cap = vm->records_cap ? vm->records_cap * 2 : 16;
		struct gs_vm_record *grown = realloc(vm->records, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		vm->records = grown;
		vm->records_cap = cap;
	}
	r = &vm->records[vm->nrecords];
	r->data = malloc(size ? size : 1);
	if (!r->data)
		return -ENOMEM;
	if (size)
		memcpy(r->data, data, size);
	r->map = map;
	r->cpu = vm->cpu;
	r->flags = flags;
	r->size = size;
	vm->nrecords++;
	return 0;
}

size_t gs_vm_count_records(const struct gs_vm *vm, uint32_t map)
{
	size_t n = 0;

	for (size_t i = 0; i < vm->nrecords; i++)
		n += vm->records[i].map == map;
	return n;
}

void gs_vm_clear_records(struct gs_vm *vm)
{
	for (size_t i = 0; i < vm->nrecords; i++)
		free(vm->records[i].data);
	vm->nrecords = 0;
	for (size_t i = 0; i < vm->nmaps; i++)
		vm->maps[i].ring_used = 0;
}

void vm_maps_free(struct gs_vm *vm)
{
	for (size_t i = 0; i < vm->nmaps; i++) {
		struct gs_vm_map *m = &vm->maps[i];

		for (uint32_t e = 0; e < m->nentries; e++) {
			free(m->entries[e].key);
			free(m->entries[e].value);
		}
		free(m->entries);
		free(m->values);
		free(m->progs);
	}
	free(vm->maps);
}
