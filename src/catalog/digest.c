/*-------------------------------------------------------------------------
 *
 * digest.c
 *	  The md5 digest of dynview's two stored signatures (a source's shape,
 *	  a definition's analysed tree), computed here rather than through
 *	  PostgreSQL's pg_md5_hash().
 *
 * Why: in a server built with OpenSSL, pg_md5_hash() goes through OpenSSL's
 * EVP interface, whose first use in a backend fetches the digest from
 * OpenSSL's provider store (about 1.5 ms of a new connection's first
 * refresh) and makes OpenSSL register its cleanup at exit (several more ms
 * of CPU when the connection ends).  A refresh computes both signatures at
 * every call, so every new connection paid for it (bench/README.md,
 * fifteenth session, branch s15-conn).  The values are the same md5 as
 * before (RFC 1321), so signatures stored by an older build still match and
 * no table refreshes FULL for the change; regress `signature_digest`
 * compares them with SQL's md5().
 *
 * The signatures detect a change of shape that change capture cannot see;
 * they are not a security boundary against a source owner crafting a
 * collision (md5 never was one), which is also why no stronger digest is
 * needed here.  No locks, no transaction, no memory allocated.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "dynview.h"

/* the per-step constants: floor(|sin(i + 1)| * 2^32) */
static const uint32 md5_sine[64] = {
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
	0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
	0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
	0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
	0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
	0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
	0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
	0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
	0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* the left rotation of each step, four per round */
static const int md5_shift[4][4] = {
	{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21},
};

/* one 64-byte block into the state */
static void
md5_block(uint32 state[4], const unsigned char *block)
{
	uint32		words[16];
	uint32		a = state[0];
	uint32		b = state[1];
	uint32		c = state[2];
	uint32		d = state[3];

	/* the block's words are little-endian whatever the machine */
	for (int i = 0; i < 16; i++)
		words[i] = (uint32) block[4 * i] | ((uint32) block[4 * i + 1] << 8) |
			((uint32) block[4 * i + 2] << 16) | ((uint32) block[4 * i + 3] << 24);
	for (int i = 0; i < 64; i++)
	{
		uint32		f;
		int			g;
		int			s = md5_shift[i / 16][i % 4];

		switch (i / 16)
		{
			case 0:
				f = (b & c) | (~b & d);
				g = i;
				break;
			case 1:
				f = (d & b) | (~d & c);
				g = (5 * i + 1) % 16;
				break;
			case 2:
				f = b ^ c ^ d;
				g = (3 * i + 5) % 16;
				break;
			default:
				f = c ^ (b | ~d);
				g = (7 * i) % 16;
				break;
		}
		f += a + md5_sine[i] + words[g];
		a = d;
		d = c;
		c = b;
		b += (f << s) | (f >> (32 - s));
	}
	state[0] += a;
	state[1] += b;
	state[2] += c;
	state[3] += d;
}

/*
 * dv_md5_hex - the md5 of len bytes at data, as 32 lower-case hex digits
 * and a terminating zero in hex (33 bytes, the caller's): the value SQL's
 * md5() and pg_md5_hash() give.
 */
void
dv_md5_hex(const void *data, size_t len, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *bytes = data;
	uint32		state[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
	unsigned char tail[128];
	size_t		full = len & ~(size_t) 63;
	size_t		rest = len - full;
	size_t		tail_len;
	uint64		bits = (uint64) len * 8;

	for (size_t off = 0; off < full; off += 64)
		md5_block(state, bytes + off);

	/* the rest, 0x80, zeros up to 56 mod 64, the length in bits (little-endian) */
	memset(tail, 0, sizeof(tail));
	if (rest > 0)
		memcpy(tail, bytes + full, rest);
	tail[rest] = 0x80;
	tail_len = rest < 56 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 8 + i] = (unsigned char) (bits >> (8 * i));
	md5_block(state, tail);
	if (tail_len == 128)
		md5_block(state, tail + 64);

	for (int i = 0; i < 16; i++)
	{
		unsigned char byte = (unsigned char) (state[i / 4] >> (8 * (i % 4)));

		hex[2 * i] = digits[byte >> 4];
		hex[2 * i + 1] = digits[byte & 0x0f];
	}
	hex[32] = '\0';
}
