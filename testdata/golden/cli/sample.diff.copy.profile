--- ../../testdata/sample.pcap
+++ TMPDIR/copy.pcap
tolerances: rate=10%,latency=20ms,size=10%,bundling=20%,ratio=20%,share=5pp
0 outside tolerance, 0 accepted by the baseline, 0 within tolerance

opcode parity (reference: ../../testdata/sample.pcap):
dir  opcode  name              presence  old count  new count  old /s  new /s
c2s  0x21    ChecksumResp      both      5          5          0       0
c2s  0x2A    NewPlayerInGame   both      1          1          0.199   0.199
c2s  0x2C    Chat              both      1          1          0.199   0.199
s2c  0x00    Settings          both      1          1          0       0
s2c  0x01    GameInit          both      1          1          0       0
s2c  0x20    ChecksumReq       both      5          5          0       0
s2c  0x28    ChecksumComplete  both      1          1          0       0
s2c  0x2C    Chat              both      1          1          0.199   0.199
s2c  0x35    MissionInit       both      1          1          0.199   0.199
0 opcodes only in the reference (../../testdata/sample.pcap), 0 only in the other (TMPDIR/copy.pcap)
