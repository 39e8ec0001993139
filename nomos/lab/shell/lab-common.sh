# Oikos lab: functions shared by the lab's stand-ins (pct, pvesh, pveam, qm, apt-get/apt, systemctl).
# This is NOT Proxmox. It is sourced by the stand-ins, never run on its own.
#
# The simulated cluster's state, all under $OIKOS_LAB_DIR:
#   hosts/<node>/pve/lxc/<vmid>/config    Proxmox-style "key: value" lines
#   hosts/<node>/pve/lxc/<vmid>/state     running | stopped
#   hosts/<node>/pve/lxc/<vmid>/rootfs/   the container's own directory
#   hosts/<node>/pve/lxc/<vmid>/systemd/<unit>.service   a container's unit (systemctl stand-in)
#   hosts/<node>/pve/<lxc|qemu>/<vmid>/faults            a guest's faults (`nomos lab fault`)
#   hosts/<node>/pve/qemu/<vmid>/{config,state}
#   hosts/<node>/pve/template/cache/      downloaded container templates (empty files)
#   hosts/<node>/systemd/<unit>.service   a host's unit that is not in its default state
#   hosts/<node>/faults                   the host's faults, "key=value" lines
#   hosts/<node>/pve.lock                 flock: one change at a time to a node's guests and units
#   cluster.lock                          flock: VMIDs are allocated one at a time across the lab
#   backup-jobs                           the cluster's backup job: "<id> <vmid>,<vmid>,..."
#
# A unit file holds "ActiveState=", "UnitFileState=", "Description=" and, flapping,
# "FlapPeriod=" (seconds) and "FlapSince=" (epoch) lines.
# Fault keys: host rootfs_pct, cert_notafter (epoch), offline; guest disk_pct, no_backup,
# stopped (the fault stopped it), locked (the fault locked it).
#
# Errors go to stderr with the real tools' wording and exit status (255, or 2 for a missing guest).

if [ -z "${OIKOS_LAB_DIR:-}" ] || [ -z "${OIKOS_LAB_HOST:-}" ]; then
	echo "${0##*/}: this is the Oikos lab's stand-in for the Proxmox tool, not the real one; it runs only on a lab host (over the lab's ssh)" >&2
	exit 255
fi
LAB_DIR=$OIKOS_LAB_DIR
NODE=$OIKOS_LAB_HOST
NODE_DIR=$LAB_DIR/hosts/$NODE
PVE=$NODE_DIR/pve
if [ ! -d "$PVE" ]; then
	echo "${0##*/}: no lab host '$NODE' in $LAB_DIR" >&2
	exit 255
fi
TEMPLATE_CACHE=$PVE/template/cache
export LC_ALL=C

# Prints each argument as a line on stderr and exits 255, like the Proxmox CLI tools.
die() {
	printf '%s\n' "$@" >&2
	exit 255
}

param_error() { # PARAM MESSAGE
	die "400 Parameter verification failed." "$1: $2"
}

lock_node() {
	command -v flock >/dev/null 2>&1 || die "the Oikos lab needs flock (util-linux) to serialise changes"
	exec 8>>"$NODE_DIR/pve.lock"
	flock 8
}

# Always taken before the node lock, never after, so two commands cannot wait on each other.
lock_cluster() {
	command -v flock >/dev/null 2>&1 || die "the Oikos lab needs flock (util-linux) to serialise changes"
	exec 7>>"$LAB_DIR/cluster.lock"
	flock 7
}

# Readers of the whole cluster (pvesh) share the cluster lock: a change made under it (a lab
# migration moves a guest between nodes) is seen whole or not at all.
lock_cluster_shared() {
	command -v flock >/dev/null 2>&1 || die "the Oikos lab needs flock (util-linux) to serialise changes"
	exec 7>>"$LAB_DIR/cluster.lock"
	flock -s 7
}

# A command run by `pct exec` must not inherit (and so hold) the locks.
unlock_all() {
	exec 7>&- 8>&-
}

# Loads a faults file ("key=value" lines, written by `nomos lab fault`) into FAULT; none is no fault.
declare -A FAULT=()
load_faults() { # FILE
	local line
	FAULT=()
	[ -f "$1" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in *=*) FAULT[${line%%=*}]=${line#*=} ;; esac
	done <"$1"
}

check_vmid() {
	[[ $1 =~ ^[1-9][0-9]{2,8}$ ]] || param_error vmid "invalid format - value does not look like a valid VM ID"
}

check_int() { # NAME VALUE
	[[ $2 =~ ^[0-9]+$ ]] || param_error "$1" "type check ('integer') failed - got '$2'"
}

check_bool() { # NAME VALUE
	case $2 in
	0 | 1) ;;
	*) param_error "$1" "type check ('boolean') failed - got '$2'" ;;
	esac
}

# The lab's nodes, in natural order (pve2 before pve10).
nodes() {
	local d
	for d in "$LAB_DIR"/hosts/*/pve; do
		[ -d "$d" ] || continue
		d=${d%/pve}
		printf '%s\n' "${d##*/}"
	done | sort -V
}

# Whether NODE's sshd runs: a stopped lab host is an offline Proxmox node.
node_online() {
	local pid
	pid=$(cat "$LAB_DIR/hosts/$1/sshd.pid" 2>/dev/null) || return 1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# The VMIDs of one kind (lxc | qemu) on NODE, ascending.
guest_ids() { # NODE KIND
	local d
	for d in "$LAB_DIR/hosts/$1/pve/$2"/*/config; do
		[ -f "$d" ] || continue
		d=${d%/config}
		printf '%s\n' "${d##*/}"
	done | sort -n
}

# Prints "<node> <lxc|qemu>" for the guest with this VMID anywhere in the lab; fails if there is none.
find_guest() { # VMID
	local n kind
	for n in $(nodes); do
		for kind in lxc qemu; do
			if [ -f "$LAB_DIR/hosts/$n/pve/$kind/$1/config" ]; then
				printf '%s %s\n' "$n" "$kind"
				return 0
			fi
		done
	done
	return 1
}

# Fails with Proxmox's message if VMID is taken anywhere in the cluster. WHAT is "CT" or "VM".
ensure_free_vmid() { # VMID WHAT
	local at
	if at=$(find_guest "$1"); then
		local kind=CT
		[ "${at#* }" = qemu ] && kind=VM
		die "unable to create $2 $1 - $kind $1 already exists on node '${at% *}'"
	fi
}

# The smallest VMID >= 100 that no guest of the lab uses.
next_free_vmid() {
	local id=100
	while find_guest "$id" >/dev/null; do
		id=$((id + 1))
	done
	printf '%s\n' "$id"
}

# Refuses to change a guest whose config holds a lock (a backup or migration at work), as Proxmox
# does. WHAT is "CT" or "VM".
check_unlocked() { # CONFIG WHAT
	local lock
	if lock=$(cfg_get "$1" lock); then die "$2 is locked ($lock)"; fi
}

# The value of KEY in a config file.
cfg_get() { # FILE KEY
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		"$2: "*)
			printf '%s\n' "${line#"$2: "}"
			return 0
			;;
		esac
	done <"$1"
	return 1
}

# Reads a guest config into CFG (key -> value) and its description into CFG_DESC. Proxmox keeps
# the description as leading "#" lines, percent-encoded; `pct set --description` here writes a key.
# Snapshot sections ("[name]") that may follow are not the current config.
declare -A CFG=()
CFG_DESC=
load_cfg() { # FILE
	local line desc=
	CFG=()
	CFG_DESC=
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'['*) break ;;
		'#'*) desc+="${line#\#}"$'\n' ;;
		*': '*) CFG[${line%%: *}]=${line#*: } ;;
		esac
	done <"$1"
	if [ -n "${CFG[description]:-}" ]; then
		CFG_DESC=${CFG[description]}
		unset 'CFG[description]'
	elif [ -n "$desc" ]; then
		desc=${desc%$'\n'}
		desc=${desc//\\/\\\\}
		printf -v CFG_DESC '%b' "${desc//%/\\x}"
	fi
}

# Sets KEY (removes it if VALUE is empty). Keys stay sorted, as Proxmox writes them; the file is
# replaced atomically so a concurrent reader never sees half of it.
cfg_set() { # FILE KEY VALUE
	local file=$1 key=$2 value=$3 line
	{
		if [ -f "$file" ]; then
			while IFS= read -r line || [ -n "$line" ]; do
				case $line in
				"$key: "* | "$key:") ;;
				*) printf '%s\n' "$line" ;;
				esac
			done <"$file"
		fi
		if [ -n "$value" ]; then printf '%s: %s\n' "$key" "$value"; fi
	} | sort >"$file.tmp.$$" && mv -f "$file.tmp.$$" "$file"
}

# "8G" from a disk spec such as "local:101/vm-101-disk-0.raw,size=8G" (empty if none).
disk_size() {
	local spec=$1
	case $spec in
	*size=*)
		spec=${spec#*size=}
		printf '%s\n' "${spec%%,*}"
		;;
	esac
}

# Bytes of a Proxmox size such as 8G, 512M (0 if unknown).
size_bytes() {
	local n=${1%[KMGT]}
	[[ $n =~ ^[0-9]+$ ]] || {
		echo 0
		return
	}
	case $1 in
	*T) echo $((n * 1024 * 1024 * 1024 * 1024)) ;;
	*G) echo $((n * 1024 * 1024 * 1024)) ;;
	*M) echo $((n * 1024 * 1024)) ;;
	*K) echo $((n * 1024)) ;;
	*) echo "$n" ;;
	esac
}

# Sets BYTES to the size of a disk spec ("local-lvm:vm-101-disk-0,size=8G"; 0 if none), without
# the subshells of size_bytes "$(disk_size …)": pvesh does this for every volume of the cluster.
volume_bytes() { # SPEC
	local size n
	BYTES=0
	[[ $1 == *size=* ]] || return 0
	size=${1#*size=}
	size=${size%%,*}
	n=${size%[KMGT]}
	[[ $n =~ ^[0-9]+$ ]] || return 0
	case $size in
	*T) BYTES=$((n << 40)) ;;
	*G) BYTES=$((n << 30)) ;;
	*M) BYTES=$((n << 20)) ;;
	*K) BYTES=$((n << 10)) ;;
	*) BYTES=$n ;;
	esac
}

# A fresh MAC address with Proxmox's prefix.
hwaddr() {
	printf 'BC:24:11:%02X:%02X:%02X\n' $((RANDOM % 256)) $((RANDOM % 256)) $((RANDOM % 256))
}

# --- option parsing ---------------------------------------------------------------------------
#
# parse_opts "ALLOWED" "$@" splits arguments into options (OPT_K/OPT_V) and positional ARGS.
# ALLOWED is a space-separated list of option names; "net*" admits net0..net9, and a trailing "?"
# marks a boolean that may be given bare (--purge means --purge 1). --key=value works too.

opt_allowed() { # ALLOWED KEY -> prints the matching spec
	local spec
	for spec in $1; do
		case $spec in
		*'*')
			[[ $2 =~ ^${spec%\*}[0-9]$ ]] && {
				echo "$spec"
				return 0
			}
			;;
		*)
			[ "${spec%\?}" = "$2" ] && {
				echo "$spec"
				return 0
			}
			;;
		esac
	done
	return 1
}

parse_opts() {
	local allowed=$1 k v spec
	shift
	OPT_K=()
	OPT_V=()
	ARGS=()
	while [ $# -gt 0 ]; do
		case $1 in
		--)
			shift
			ARGS+=("$@")
			break
			;;
		--*=*)
			k=${1%%=*}
			k=${k#--}
			v=${1#*=}
			shift
			spec=$(opt_allowed "$allowed" "$k") ||
				param_error "$k" "property is not defined in schema and the schema does not allow additional properties"
			;;
		--*)
			k=${1#--}
			shift
			spec=$(opt_allowed "$allowed" "$k") ||
				param_error "$k" "property is not defined in schema and the schema does not allow additional properties"
			case $spec in
			*'?')
				case ${1:-} in
				0 | 1 | yes | no | true | false | on | off)
					v=$1
					shift
					;;
				*) v=1 ;;
				esac
				;;
			*)
				[ $# -gt 0 ] || param_error "$k" "option requires a value"
				v=$1
				shift
				;;
			esac
			;;
		*)
			ARGS+=("$1")
			shift
			continue
			;;
		esac
		case $v in
		*$'\n'*) param_error "$k" "value must not contain a newline" ;;
		esac
		case $spec in
		*'?')
			case $v in
			1 | yes | true | on) v=1 ;;
			*) v=0 ;;
			esac
			;;
		esac
		OPT_K+=("$k")
		OPT_V+=("$v")
	done
}

# The value of option KEY (fails if it was not given).
opt() {
	local i
	for i in "${!OPT_K[@]}"; do
		if [ "${OPT_K[$i]}" = "$1" ]; then
			printf '%s\n' "${OPT_V[$i]}"
			return 0
		fi
	done
	return 1
}

# --- JSON output --------------------------------------------------------------------------------
#
# Objects are collected in OBJS, each as lines "key<TAB>json value", and printed like pvesh does:
# compact for --output-format json, Perl's pretty style for json-pretty; keys sorted (canonical).

json_str() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\t'/\\t}
	s=${s//$'\r'/\\r}
	printf '"%s"' "$s"
}

# A number stays a number; anything else becomes a string.
json_val() {
	if [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then printf '%s' "$1"; else json_str "$1"; fi
}

OBJS=()
CUR=
obj_new() { CUR=; }
obj_raw() { CUR+="$1"$'\t'"$2"$'\n'; }
obj_str() { obj_raw "$1" "$(json_str "$2")"; }
obj_end() { OBJS+=("$CUR"); }

# One object (lines "key<TAB>json") rendered compact or pretty at INDENT spaces.
render_obj() { # OBJ FORMAT INDENT
	local sorted line first=1 pad=${3:-} out
	sorted=$(printf '%s' "$1" | sort -t $'\t' -k1,1)
	if [ "$2" = json-pretty ]; then
		out="$pad{"$'\n'
		while IFS=$'\t' read -r k v; do
			[ -n "$k" ] || continue
			if [ $first = 1 ]; then first=0; else out+=","$'\n'; fi
			out+="$pad   \"$k\" : $v"
		done <<<"$sorted"
		out+=$'\n'"$pad}"
	else
		out="{"
		while IFS=$'\t' read -r k v; do
			[ -n "$k" ] || continue
			if [ $first = 1 ]; then first=0; else out+=","; fi
			out+="\"$k\":$v"
		done <<<"$sorted"
		out+="}"
	fi
	printf '%s' "$out"
}

# Prints OBJS as a JSON array.
render_array() { # FORMAT
	local i n=${#OBJS[@]}
	if [ "$n" -eq 0 ]; then
		echo "[]"
		return
	fi
	if [ "$1" = json-pretty ]; then
		echo "["
		for i in "${!OBJS[@]}"; do
			render_obj "${OBJS[$i]}" json-pretty "   "
			if [ "$i" -lt $((n - 1)) ]; then echo ","; else echo; fi
		done
		echo "]"
	else
		printf '['
		for i in "${!OBJS[@]}"; do
			[ "$i" -gt 0 ] && printf ','
			render_obj "${OBJS[$i]}" json
		done
		printf ']\n'
	fi
}

# Prints OBJS as a plain table (pvesh's --noborder style) of the given columns.
render_table() { # COLUMN...
	local col obj line v i
	local -a widths rows
	i=0
	for col in "$@"; do
		widths[i]=${#col}
		i=$((i + 1))
	done
	for obj in "${OBJS[@]}"; do
		line=
		i=0
		for col in "$@"; do
			v=$(printf '%s' "$obj" | sed -n "s/^$col"$'\t'"//p")
			v=${v#\"}
			v=${v%\"}
			[ ${#v} -gt "${widths[i]}" ] && widths[i]=${#v}
			line+="$v"$'\t'
			i=$((i + 1))
		done
		rows+=("$line")
	done
	i=0
	line=
	for col in "$@"; do
		line+=$(printf '%-*s ' "${widths[i]}" "$col")
		i=$((i + 1))
	done
	printf '%s\n' "${line% }"
	for obj in "${rows[@]}"; do
		line=
		i=0
		while IFS= read -r -d $'\t' v; do
			line+=$(printf '%-*s ' "${widths[i]}" "$v")
			i=$((i + 1))
		done <<<"$obj"
		printf '%s\n' "${line% }"
	done
}
