/*
 * The kernel's random bytes: xoshiro256** seeded from the time-stamp
 * counter at the first use, with the TSC mixed in again at every request,
 * so two boots or two requests differ.  Not cryptographically strong (no
 * entropy pool, no RDRAND): enough for glibc's malloc and hash-table
 * seeds, not for keys.  getrandom(2), /dev/random and /dev/urandom
 * (fs/dev/random.c) read it; bytes written to the devices are mixed into
 * the state, as Linux mixes them into its pool.
 */
#include "lib/random.h"
#include "arch/x86_64/cpu.h"
#include "lib/spinlock.h"
#include "lib/string.h"

static struct spinlock random_lock = SPINLOCK_INIT("random");
static uint64_t state[4]; /* random_lock */

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t next_locked(void)
{
	uint64_t result = rotl(state[1] * 5, 7) * 9, t = state[1] << 17;

	state[2] ^= state[0];
	state[3] ^= state[1];
	state[1] ^= state[2];
	state[0] ^= state[3];
	state[2] ^= t;
	state[3] = rotl(state[3], 45);
	return result;
}

/* splitmix64: spreads one TSC reading over the whole state. */
static void mix_locked(uint64_t seed)
{
	for (int i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		state[i] ^= z ^ (z >> 31);
	}
}

void random_fill(uint8_t *buf, size_t len)
{
	spin_lock(&random_lock);
	mix_locked(rdtsc());
	for (size_t i = 0; i < len; i += 8) {
		uint64_t r = next_locked();
		memcpy(buf + i, &r, len - i < 8 ? len - i : 8);
	}
	spin_unlock(&random_lock);
}

uint64_t random_u64(void)
{
	uint64_t r;

	random_fill((uint8_t *)&r, sizeof(r));
	return r;
}

void random_mix(const uint8_t *buf, size_t len)
{
	spin_lock(&random_lock);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t word = 0;
		memcpy(&word, buf + i, len - i < 8 ? len - i : 8);
		mix_locked(word ^ rdtsc());
	}
	spin_unlock(&random_lock);
}

void random_reseed(void)
{
	spin_lock(&random_lock);
	mix_locked(rdtsc());
	spin_unlock(&random_lock);
}
