/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an outlier's syscall waited on (struct sclat_target), read at sys_exit
 * for outliers only: the file behind its fd argument (a path, a pipe, a
 * socket's addresses, an anonymous inode), or its path argument. Every read
 * is fault-safe, through bpf_probe_read_kernel (BPF_CORE_READ) or a load the
 * verifier guards (kernel_cast): a file closed or a mount moved under us
 * reads as zeros or stale names, never as a fault.
 *
 * Needs vmlinux.h, bpf_core_read.h and sclat_abi.h before it.
 */
#ifndef SCLAT_TARGET_BPF_H
#define SCLAT_TARGET_BPF_H

#define PIPEFS_MAGIC	    0x50495045
#define SOCKFS_MAGIC	    0x534f434b
#define ANON_INODE_FS_MAGIC 0x09041934
#define TARGET_AT_FDCWD	    -100
#define TARGET_AF_UNIX	    1
#define TARGET_AF_INET	    2
#define TARGET_AF_INET6	    10

/* One path component with its NUL (NAME_MAX + 1), and the most a walk visits. */
#define TARGET_NAME_MAX	  256
#define TARGET_PATH_STEPS 32
/* Where a string may start so that a whole component still fits. */
#define TARGET_STR_LAST	  (SCLAT_TARGET_STR_MAX - TARGET_NAME_MAX)

_Static_assert(TARGET_STR_LAST > 0, "SCLAT_TARGET_STR_MAX holds less than one name");

/*
 * bpf_rdonly_cast (a kfunc, Linux 6.2 on): p, whatever the verifier knew of
 * it, as a pointer to the kernel's type: read-only, each load made fault-safe
 * by the verifier, no helper call. Weak: on an older kernel it is NULL, and
 * the verifier drops the code that uses it (bpf_probe_read_kernel instead).
 */
extern void *bpf_rdonly_cast(const void *obj__ign, __u32 btf_id__k) __ksym __weak;
#define kernel_cast(p, type) \
	((type *)bpf_rdonly_cast((const void *)(p), bpf_core_type_id_kernel(type)))

/*
 * The struct file of fd in task's table, or NULL: bounds-checked against the
 * table. Reused wherever sys_exit needs what an fd is. task is a BTF pointer:
 * plain loads down to the table, and the table's slot, read through a type
 * whose first member is a struct file pointer (struct kiocb), is one too.
 */
static __always_inline struct file *fd_file(struct task_struct *task, long fd)
{
	struct files_struct *files = task->files;
	struct file *f = NULL;
	struct fdtable *fdt;
	__u64 fds;

	if (fd < 0 || !files)
		return NULL;
	fdt = files->fdt;
	if (!fdt || fd >= fdt->max_fds)
		return NULL;
	fds = (__u64)fdt->fd;
	if (!fds)
		return NULL;
	if (bpf_rdonly_cast)
		return kernel_cast(fds + fd * sizeof(struct file *), struct kiocb)->ki_filp;
	if (bpf_probe_read_kernel(&f, sizeof(f), (void *)(fds + fd * sizeof(struct file *))))
		return NULL;
	return f;
}

/* The file behind the fd argument that rule names (SCLAT_RULE_FD), or NULL; its fd in *fd. */
static __always_inline struct file *rule_fd_file(struct task_struct *task,
						 const struct sclat_target_rule *rule,
						 const __u64 *args, int *fd)
{
	*fd = (int)args[rule->arg & (SCLAT_NR_ARGS - 1)];
	return fd_file(task, *fd);
}

#define TARGET_S_IFMT	  0170000
#define TARGET_S_IFSOCK	  0140000
#define TARGET_S_IFREG	  0100000
#define TARGET_S_IFBLK	  0060000
#define TARGET_S_IFDIR	  0040000
#define TARGET_S_IFCHR	  0020000
#define TARGET_S_IFIFO	  0010000
#define TARGET_AF_NETLINK 16

/*
 * What kind of file f is (enum sclat_fd_kind), from its inode's type and
 * socket family: plain loads (see kernel_cast), on the path of every call of
 * a syscall with fd classes.
 */
static __always_inline __u32 fd_kind_of_file(struct file *file)
{
	struct inode *inode;
	bool anon = false;
	__u16 family = 0;
	__u32 type;

	if (bpf_rdonly_cast) {
		/* file is fd_file()'s: already a pointer the verifier types, and guards. */
		inode = file->f_inode;
		if (!inode)
			return SCLAT_FD_NONE;
		type = inode->i_mode & TARGET_S_IFMT;
		/* An anonymous inode has no type, or S_IFREG (6.15 on): only these read it. */
		if (type == TARGET_S_IFREG || !type)
			anon = inode->i_sb->s_magic == ANON_INODE_FS_MAGIC;
		if (type == TARGET_S_IFSOCK)
			family = kernel_cast(file->private_data, struct socket)
					 ->sk->__sk_common.skc_family;
	} else {
		inode = BPF_CORE_READ(file, f_inode);
		if (!inode)
			return SCLAT_FD_NONE;
		type = BPF_CORE_READ(inode, i_mode) & TARGET_S_IFMT;
		if (type == TARGET_S_IFREG || !type)
			anon = BPF_CORE_READ(inode, i_sb, s_magic) == ANON_INODE_FS_MAGIC;
		if (type == TARGET_S_IFSOCK) {
			struct socket *sock = BPF_CORE_READ(file, private_data);

			family = BPF_CORE_READ(sock, sk, __sk_common.skc_family);
		}
	}
	if (anon)
		return SCLAT_FD_ANON;
	switch (type) {
	case TARGET_S_IFREG:
		return SCLAT_FD_REGULAR;
	case TARGET_S_IFDIR:
		return SCLAT_FD_DIR;
	case TARGET_S_IFCHR:
		return SCLAT_FD_CHR;
	case TARGET_S_IFBLK:
		return SCLAT_FD_BLK;
	case TARGET_S_IFIFO:
		return SCLAT_FD_PIPE;
	case TARGET_S_IFSOCK:
		if (family == TARGET_AF_UNIX)
			return SCLAT_FD_UNIX;
		if (family == TARGET_AF_INET)
			return SCLAT_FD_INET;
		if (family == TARGET_AF_INET6)
			return SCLAT_FD_INET6;
		if (family == TARGET_AF_NETLINK)
			return SCLAT_FD_NETLINK;
		return SCLAT_FD_SOCKET;
	}
	return SCLAT_FD_OTHER;
}

static __always_inline struct mount *mount_of(struct vfsmount *vfsmnt)
{
	return (void *)vfsmnt - bpf_core_field_offset(struct mount, mnt);
}

/*
 * The names of the path (dentry, vfsmnt) up to the task's root, the file's
 * first, each with its NUL, into str from off; crosses mount points like
 * d_path(). Returns the new offset; sets SCLAT_TARGET_TRUNCATED when the
 * names did not fit.
 */
static __always_inline __u32 path_names(struct sclat_target *tg, __u32 off, struct dentry *dentry,
					struct vfsmount *vfsmnt, const struct path *root)
{
	struct mount *mnt = mount_of(vfsmnt);
	struct dentry *parent;
	const unsigned char *name;
	int i, n;

	for (i = 0; i < TARGET_PATH_STEPS; i++) {
		if (dentry == root->dentry && vfsmnt == root->mnt)
			return off;
		if (dentry == BPF_CORE_READ(vfsmnt, mnt_root)) {
			struct mount *up = BPF_CORE_READ(mnt, mnt_parent);

			/* The top of the tree (or of an internal mount, such as pipefs). */
			if (up == mnt || !up)
				return off;
			dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = up;
			vfsmnt = &up->mnt;
			continue;
		}
		parent = BPF_CORE_READ(dentry, d_parent);
		if (parent == dentry || !parent)
			return off;
		if (off > TARGET_STR_LAST) {
			tg->flags |= SCLAT_TARGET_TRUNCATED;
			return off;
		}
		name = BPF_CORE_READ(dentry, d_name.name);
		n = bpf_probe_read_kernel_str(tg->str + off, TARGET_NAME_MAX, name);
		if (n > 0)
			off += n;
		dentry = parent;
	}
	tg->flags |= SCLAT_TARGET_TRUNCATED;
	return off;
}

/* The sun_path bytes of AF_UNIX socket sk into dst (at most 108); returns how many. */
static __always_inline __u16 unix_sun_path(char *dst, struct sock *sk)
{
	struct unix_address *ua = sk ? BPF_CORE_READ((struct unix_sock *)sk, addr) : NULL;
	/* The address's length counts sun_family's 2 bytes. */
	int len = ua ? BPF_CORE_READ(ua, len) - 2 : 0;

	if (len <= 0 || len > 108 || bpf_probe_read_kernel(dst, len & 127, (void *)ua->name + 2))
		return 0;
	return len;
}

/* The addresses of a socket (struct socket *sock) into tg. */
static __always_inline void socket_describe(struct sclat_target *tg, struct socket *sock)
{
	struct sock *sk = BPF_CORE_READ(sock, sk);
	__u16 len;

	tg->kind = SCLAT_TARGET_SOCKET;
	tg->type = BPF_CORE_READ(sock, type);
	if (!sk)
		return;
	tg->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	tg->protocol = BPF_CORE_READ(sk, sk_protocol);
	if (tg->family == TARGET_AF_INET || tg->family == TARGET_AF_INET6) {
		tg->local_port = BPF_CORE_READ(sk, __sk_common.skc_num);
		tg->peer_port = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
		if (tg->family == TARGET_AF_INET) {
			bpf_core_read(tg->local_addr, 4, &sk->__sk_common.skc_rcv_saddr);
			bpf_core_read(tg->peer_addr, 4, &sk->__sk_common.skc_daddr);
		} else {
			bpf_core_read(tg->local_addr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
			bpf_core_read(tg->peer_addr, 16, &sk->__sk_common.skc_v6_daddr);
		}
	} else if (tg->family == TARGET_AF_UNIX) {
		len = unix_sun_path(tg->str, sk);
		tg->str_len[0] = len;
		tg->str_len[1] = unix_sun_path(tg->str + (len & 127),
					       BPF_CORE_READ((struct unix_sock *)sk, peer));
	}
}

/* What file f is, into tg: a path, a pipe, a socket or an anonymous inode. */
static __always_inline void file_describe(struct sclat_target *tg, struct file *f,
					  const struct path *root)
{
	struct inode *inode = BPF_CORE_READ(f, f_inode);
	struct dentry *dentry = BPF_CORE_READ(f, f_path.dentry);
	struct super_block *sb = BPF_CORE_READ(inode, i_sb);
	int n;

	tg->ino = BPF_CORE_READ(inode, i_ino);
	tg->dev = BPF_CORE_READ(sb, s_dev);
	tg->magic = BPF_CORE_READ(sb, s_magic);
	if (tg->magic == PIPEFS_MAGIC) {
		tg->kind = SCLAT_TARGET_PIPE;
	} else if (tg->magic == SOCKFS_MAGIC) {
		socket_describe(tg, BPF_CORE_READ(f, private_data));
	} else if (tg->magic == ANON_INODE_FS_MAGIC) {
		tg->kind = SCLAT_TARGET_ANON;
		n = bpf_probe_read_kernel_str(tg->str, TARGET_NAME_MAX,
					      BPF_CORE_READ(dentry, d_name.name));
		tg->str_len[0] = n > 0 ? n : 0;
	} else {
		tg->kind = SCLAT_TARGET_FILE;
		tg->str_len[0] = path_names(tg, 0, dentry, BPF_CORE_READ(f, f_path.mnt), root);
		if (!BPF_CORE_READ(inode, __i_nlink))
			tg->flags |= SCLAT_TARGET_DELETED;
	}
}

/*
 * The path argument at args[rule->arg] into tg: the string as given, after
 * the path of the directory it is relative to when it does not start with /.
 */
static __always_inline void path_describe(struct sclat_target *tg, struct task_struct *task,
					  const struct sclat_target_rule *rule, const __u64 *args,
					  const struct path *root)
{
	const char *user = (const char *)args[rule->arg & (SCLAT_NR_ARGS - 1)];
	struct path dir = {};
	struct file *f;
	__u32 off = 0;
	char first = 0;
	int n;

	tg->kind = SCLAT_TARGET_PATH;
	tg->fd = rule->dirfd < SCLAT_NR_ARGS ? (int)args[rule->dirfd] : TARGET_AT_FDCWD;
	if (bpf_probe_read_user(&first, 1, user) || !first)
		return;
	if (first != '/') {
		if (tg->fd == TARGET_AT_FDCWD) {
			BPF_CORE_READ_INTO(&dir, task, fs, pwd);
		} else {
			f = fd_file(task, tg->fd);
			if (f)
				BPF_CORE_READ_INTO(&dir, f, f_path);
		}
		if (dir.dentry && dir.mnt) {
			off = path_names(tg, 0, dir.dentry, dir.mnt, root);
			tg->flags |= SCLAT_TARGET_IN_DIR;
		}
	}
	tg->str_len[0] = off;
	if (off > TARGET_STR_LAST) {
		tg->flags |= SCLAT_TARGET_TRUNCATED;
		return;
	}
	n = bpf_probe_read_user_str(tg->str + off, TARGET_NAME_MAX, user);
	if (n <= 0)
		return;
	tg->str_len[1] = n;
	if (n == TARGET_NAME_MAX)
		tg->flags |= SCLAT_TARGET_TRUNCATED;
}

/*
 * The target of the current task's syscall, as rule says, into tg (zeroed by
 * the caller). Returns false when there is none to describe.
 */
static __always_inline bool target_describe(struct sclat_target *tg, struct task_struct *task,
					    const struct sclat_target_rule *rule, const __u64 *args)
{
	struct path root = {};
	struct file *f = NULL;

	BPF_CORE_READ_INTO(&root, task, fs, root);
	switch (rule->kind) {
	case SCLAT_RULE_FD:
		f = rule_fd_file(task, rule, args, &tg->fd);
		break;
	case SCLAT_RULE_EXEC:
		f = BPF_CORE_READ(task, mm, exe_file);
		break;
	case SCLAT_RULE_PATH:
		path_describe(tg, task, rule, args, &root);
		return true;
	default:
		return false;
	}
	if (!f)
		return false;
	file_describe(tg, f, &root);
	return true;
}

#endif /* SCLAT_TARGET_BPF_H */
