-- A stand-in for the part of Wireshark's Lua API that bcdump's plugin uses,
-- so that the plugin can run under any Lua interpreter (5.2, 5.3, 5.4)
-- without Wireshark. cmd/bcdump's TestWiresharkPluginLua runs it:
--
--   lua5.4 harness.lua bcdump.lua frames.tsv
--
-- frames.tsv has one UDP datagram per line: frame, source address, source
-- port, destination address, destination port, payload in hex and,
-- optionally, the capture time in seconds (tabs between).
-- The frames are dissected twice, as "tshark -2" does; the second pass prints
-- every field item, in tree order, as "frame<TAB>abbr<TAB>value" with "\\",
-- tab and newline escaped, then the Info column as "frame<TAB>!info<TAB>text".
-- A Lua error escaping the dissector is printed as "frame<TAB>!error<TAB>message",
-- an item the plugin could not add (its "bc.plugin.refused" expert entry)
-- as "frame<TAB>!refused<TAB>text".
--
-- The stand-in refuses what Wireshark refuses, so a plugin that runs here
-- runs there: a value given to a field that takes none (FT_NONE: Wireshark
-- 4.0 fails with "FT_ not yet supported"), a value of the wrong type (a
-- string or boolean for a number, a table for a string), a number with a
-- fraction for an integer field (luaL_checkinteger's "number has no
-- integer representation" in Wireshark built with Lua 5.3 or 5.4; the
-- stand-in refuses it under every Lua, so the 5.2 runs catch it too), an
-- integer outside the field's width, and a range past the end of its
-- buffer.

local plugin_path, frames_path = arg[1], arg[2]
local lua53 = math.tointeger ~= nil

local function is(v, kind) return type(v) == "table" and rawget(v, "_kind") == kind end

-- integer converts a field value as wslua_checkint32/uint32 would.
local function integer(v)
	if type(v) == "boolean" then error("bad argument (number expected, got boolean)", 0) end
	local n = tonumber(v)
	if n == nil then error("bad argument (number expected, got " .. type(v) .. ")", 0) end
	if n ~= n or n == math.huge or n == -math.huge or n ~= math.floor(n) then
		error("bad argument (number has no integer representation)", 0)
	end
	if lua53 then return math.tointeger(n) end
	return n
end

local HEXDIGITS = { uint8 = 2, uint16 = 4, uint32 = 8 }

-- WIDTH is the value range of each integer field type.
local WIDTH = { uint8 = { 0, 2 ^ 8 - 1 }, uint16 = { 0, 2 ^ 16 - 1 }, uint32 = { 0, 2 ^ 32 - 1 },
	int8 = { -2 ^ 7, 2 ^ 7 - 1 }, int16 = { -2 ^ 15, 2 ^ 15 - 1 }, int32 = { -2 ^ 31, 2 ^ 31 - 1 } }

---------------------------------------------------------------- constants

base = { NONE = "NONE", DEC = "DEC", HEX = "HEX", OCT = "OCT", ASCII = "ASCII", UNICODE = "UNICODE" }
expert = {
	group = setmetatable({}, { __index = function(_, k) return k end }),
	severity = setmetatable({}, { __index = function(_, k) return k end }),
}

---------------------------------------------------------------- Proto, fields, prefs

local protos = {}

function Proto(name, desc)
	local prefs = setmetatable({}, {
		__newindex = function(t, k, v)
			if type(v) == "table" and v._pref then v = v.default end
			rawset(t, k, v)
		end,
	})
	local p = { _kind = "proto", name = name, desc = desc, prefs = prefs }
	protos[#protos + 1] = p
	return p
end

Pref = {}
function Pref.uint(label, default, desc) return { _pref = true, default = default } end
function Pref.bool(label, default, desc) return { _pref = true, default = default } end
function Pref.string(label, default, desc) return { _pref = true, default = default } end

ProtoField = {}
local function field(ftype)
	return function(abbr, name, a3, a4)
		local b = nil
		if type(a3) == "string" and base[a3] then b = a3 end
		if a4 ~= nil and type(a4) ~= "table" and type(a4) ~= "string" then
			error("ProtoField." .. ftype .. ": bad value string table", 0)
		end
		return { _kind = "field", abbr = abbr, name = name, ftype = ftype, base = b }
	end
end
for _, t in ipairs({ "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
	"float", "double", "bool", "string", "bytes", "none", "ipv4" }) do
	ProtoField[t] = field(t)
end

ProtoExpert = {}
function ProtoExpert.new(abbr, text, group, severity)
	return { _kind = "expert", abbr = abbr, text = text, _expert = true }
end

local udp = {}
DissectorTable = {}
function DissectorTable.get(name)
	return {
		add = function(_, port, proto) udp[port] = proto end,
		remove = function(_, port) udp[port] = nil end,
	}
end

---------------------------------------------------------------- ByteArray

ByteArray = {}
local BA = {}
BA.__index = BA

-- ByteArray.new(s, true) takes s as raw bytes (Wireshark 1.11.3 and later).
function ByteArray.new(hex, raw)
	local b = setmetatable({ _kind = "bytearray", n = 0, b = {} }, BA)
	if hex and raw == true then
		for i = 1, #hex do b.b[i - 1] = hex:byte(i) end
		b.n = #hex
	elseif hex then
		for h in hex:gmatch("%x%x") do
			b.b[b.n] = tonumber(h, 16)
			b.n = b.n + 1
		end
	end
	return b
end

local function bytes_of(s, off, n)
	local b = ByteArray.new()
	for i = 0, n - 1 do b.b[i] = s[off + i] end
	b.n = n
	return b
end

function BA:len() return self.n end
function BA:set_size(n)
	for i = self.n, n - 1 do self.b[i] = 0 end
	self.n = n
end
function BA:get_index(i)
	if i < 0 or i >= self.n then error("index out of range", 0) end
	return self.b[i]
end
function BA:set_index(i, v)
	if i < 0 or i >= self.n then error("index out of range", 0) end
	self.b[i] = integer(v) % 256
end
function BA:append(o)
	for i = 0, o.n - 1 do self.b[self.n + i] = o.b[i] end
	self.n = self.n + o.n
end
function BA:tohex(lower, sep)
	local f = lower and "%02x" or "%02X"
	local t = {}
	for i = 0, self.n - 1 do t[#t + 1] = string.format(f, self.b[i]) end
	return table.concat(t, sep or "")
end
function BA:raw()
	local t = {}
	for i = 0, self.n - 1 do t[#t + 1] = string.char(self.b[i]) end
	return table.concat(t)
end
function BA:tvb(name) return Tvb(self.b, 0, self.n) end

---------------------------------------------------------------- Tvb, TvbRange

local TR = {}
TR.__index = TR
local TV = {}
TV.__index = TV

-- Tvb is a buffer view: s holds the bytes (0-based), from off, n long.
function Tvb(s, off, n)
	return setmetatable({ _kind = "tvb", s = s, off = off, n = n }, TV)
end

-- A range must lie inside the buffer; its end may be the buffer's end.
TV.__call = function(t, off, n)
	off = off or 0
	if n == nil or n == -1 then n = t.n - off end
	if off < 0 or n < 0 or off + n > t.n then error("Range is out of bounds", 0) end
	return setmetatable({ _kind = "range", s = t.s, off = t.off + off, n = n }, TR)
end
function TV:len() return self.n end
-- A range is callable too: a sub-range, checked against the range.
TR.__call = TV.__call
function TV:reported_len() return self.n end

local function ubytes(r, little)
	if r.n < 1 or r.n > 4 then error("TvbRange:uint: range must be 1-4 bytes long", 0) end
	local v = 0
	for i = 0, r.n - 1 do
		local k = little and r.n - 1 - i or i
		v = v * 256 + r.s[r.off + k]
	end
	return v
end
local function signed(v, n)
	local lim = 2 ^ (8 * n - 1)
	if v >= lim then v = v - 2 * lim end
	return v
end
local function int(v) if lua53 then return math.tointeger(v) end return v end

function TR:len() return self.n end
function TR:uint() return int(ubytes(self, false)) end
function TR:le_uint() return int(ubytes(self, true)) end
function TR:int() return int(signed(ubytes(self, false), self.n)) end
function TR:le_int() return int(signed(ubytes(self, true), self.n)) end
function TR:le_float()
	if self.n ~= 4 then error("TvbRange:le_float: range must be 4 bytes long", 0) end
	local u = ubytes(self, true)
	local sign = u >= 2 ^ 31 and -1 or 1
	local e = math.floor(u / 2 ^ 23) % 256
	local m = u % 2 ^ 23
	if e == 255 then
		if m ~= 0 then return 0 / 0 end
		return sign * math.huge
	end
	if e == 0 then return sign * m * 2.0 ^ -149 end
	return sign * (1 + m / 2 ^ 23) * 2.0 ^ (e - 127)
end
function TR:bytes() return bytes_of(self.s, self.off, self.n) end
function TR:raw() return bytes_of(self.s, self.off, self.n):raw() end
function TR:tvb() return Tvb(self.s, self.off, self.n) end

-- utf8 encodes a code point (utf8.char is Lua 5.3+).
local function utf8enc(c)
	if c < 0x80 then return string.char(c) end
	if c < 0x800 then return string.char(0xC0 + math.floor(c / 64), 0x80 + c % 64) end
	if c < 0x10000 then
		return string.char(0xE0 + math.floor(c / 4096), 0x80 + math.floor(c / 64) % 64, 0x80 + c % 64)
	end
	return string.char(0xF0 + math.floor(c / 262144), 0x80 + math.floor(c / 4096) % 64,
		0x80 + math.floor(c / 64) % 64, 0x80 + c % 64)
end

-- le_ustring decodes UTF-16LE, as tvb_get_string_enc does (an unpaired
-- surrogate becomes U+FFFD).
function TR:le_ustring()
	local t, i = {}, 0
	while i + 1 < self.n do
		local c = self.s[self.off + i] + 256 * self.s[self.off + i + 1]
		i = i + 2
		if c >= 0xD800 and c < 0xDC00 and i + 1 < self.n then
			local d = self.s[self.off + i] + 256 * self.s[self.off + i + 1]
			if d >= 0xDC00 and d < 0xE000 then
				c = 0x10000 + (c - 0xD800) * 1024 + (d - 0xDC00)
				i = i + 2
			else
				c = 0xFFFD
			end
		elseif c >= 0xD800 and c < 0xE000 then
			c = 0xFFFD
		end
		t[#t + 1] = utf8enc(c)
	end
	if i < self.n then t[#t + 1] = utf8enc(0xFFFD) end
	return table.concat(t)
end

---------------------------------------------------------------- TreeItem

local TI = {}
TI.__index = TI

local function item(f, value)
	return setmetatable({ _kind = "item", f = f, value = value, kids = {} }, TI)
end

-- valuetext is the value as "tshark -T json" shows it.
local function valuetext(f, v)
	local t = f.ftype
	if t == "bool" then
		if v == nil then return "0" end
		if type(v) == "number" then return v ~= 0 and "1" or "0" end
		return v and "1" or "0"
	elseif t == "string" then
		if type(v) ~= "string" and type(v) ~= "number" then error("bad argument (string expected, got " .. type(v) .. ")", 0) end
		return tostring(v)
	elseif t == "float" or t == "double" then
		local n = tonumber(v)
		if n == nil then error("bad argument (number expected, got " .. type(v) .. ")", 0) end
		return string.format("%.17g", n)
	elseif t == "none" then
		error("FT_ not yet supported (a value for " .. f.abbr .. ", which holds no value)", 0)
	end
	local n = integer(v)
	local w = WIDTH[t]
	if w and (n < w[1] or n > w[2]) then
		error("bad argument (" .. tostring(n) .. " does not fit " .. t .. " field " .. f.abbr .. ")", 0)
	end
	if t:sub(1, 4) == "uint" and f.base == "HEX" then
		return string.format("0x%0" .. (HEXDIGITS[t] or 8) .. "x", n)
	end
	return string.format("%d", n)
end

-- rangevalue is what add(field, range) with no value shows: the field's
-- value read from the range.
local function rangevalue(f, r)
	local t = f.ftype
	if t == "none" then return nil end
	if t == "string" then return r:raw() end
	if t == "bool" then return ubytes(r, false) ~= 0 end
	if t == "float" then return r:le_float() end
	return ubytes(r, false)
end

function TI:add(a, b, c)
	local child
	if is(a, "field") then
		local v = c
		if c == nil and not is(b, "range") and b ~= nil then v = b end
		if v == nil and is(b, "range") then v = rangevalue(a, b) end
		child = item(a, v ~= nil and valuetext(a, v) or nil)
	elseif is(a, "proto") then
		child = item(nil, nil)
	elseif is(a, "range") then
		child = item(nil, nil) -- a text item: its label is no field value
	else
		error("TreeItem:add: bad argument #1", 0)
	end
	self.kids[#self.kids + 1] = child
	return child
end
function TI:add_le(...) return self:add(...) end
local refusals = {}
function TI:add_proto_expert_info(e, text)
	if type(e) ~= "table" or not e._expert then error("TreeItem:add_proto_expert_info: bad argument #1", 0) end
	if e.abbr == "bc.plugin.refused" then refusals[#refusals + 1] = text or e.text end
	return self
end
function TI:add_expert_info() return self end
function TI:set_text() return self end
function TI:append_text() return self end
function TI:set_len(n)
	if n < 0 then error("TreeItem:set_len: negative length", 0) end
	return self
end
function TI:set_generated() return self end

---------------------------------------------------------------- driver

local function escape(s)
	return (s:gsub("\\", "\\\\"):gsub("\t", "\\t"):gsub("\n", "\\n"):gsub("\r", "\\r"))
end

local function emit(frame, it, out)
	if it.f and it.value ~= nil then
		out[#out + 1] = frame .. "\t" .. it.f.abbr .. "\t" .. escape(it.value)
	elseif it.f and #it.kids == 0 then
		out[#out + 1] = frame .. "\t" .. it.f.abbr .. "\t"
	end
	for _, k in ipairs(it.kids) do emit(frame, k, out) end
end

local function addr(s) return setmetatable({}, { __tostring = function() return s end }) end

dofile(plugin_path)

local frames = {}
for line in io.lines(frames_path) do
	local f, src, sport, dst, dport, hex, ts = line:match("^(%d+)\t([^\t]*)\t(%d+)\t([^\t]*)\t(%d+)\t(%x*)\t?([%d.]*)$")
	if f then
		local b = ByteArray.new(hex)
		frames[#frames + 1] = { number = tonumber(f), src = src, sport = tonumber(sport), dst = dst,
			dport = tonumber(dport), bytes = b, ts = tonumber(ts) or 0 }
	end
end

for _, p in ipairs(protos) do
	if p.init then p.init() end
end

for pass = 1, 2 do
	for _, fr in ipairs(frames) do
		local proto = udp[fr.dport] or udp[fr.sport]
		if proto then
			local pinfo = {
				number = fr.number, visited = pass == 2,
				src = addr(fr.src), dst = addr(fr.dst), src_port = fr.sport, dst_port = fr.dport,
				abs_ts = fr.ts, cols = {},
			}
			local root = item(nil, nil)
			local tvb = Tvb(fr.bytes.b, 0, fr.bytes.n)
			refusals = {}
			local ok, err = pcall(proto.dissector, tvb, pinfo, root)
			if pass == 2 then
				local out = {}
				emit(fr.number, root, out)
				if not ok then out[#out + 1] = fr.number .. "\t!error\t" .. escape(tostring(err)) end
				for _, r in ipairs(refusals) do out[#out + 1] = fr.number .. "\t!refused\t" .. escape(tostring(r)) end
				if pinfo.cols.info then out[#out + 1] = fr.number .. "\t!info\t" .. escape(tostring(pinfo.cols.info)) end
				if #out > 0 then io.write(table.concat(out, "\n"), "\n") end
			end
		end
	end
end
