--- ../../testdata/captures/openbc-session-2.pcap
+++ TMPDIR/copy.pcap
tolerances: rate=10%,latency=20ms,size=10%,bundling=20%,ratio=20%,share=5pp
0 outside tolerance, 0 accepted by the baseline, 0 within tolerance

opcode parity (reference: ../../testdata/captures/openbc-session-2.pcap):
dir  opcode  name              presence  old count  new count  old /s  new /s
c2s  0x21    ChecksumResp      both      25         25         0       0
c2s  0x2A    NewPlayerInGame   both      5          5          2.014   2.014
s2c  0x00    Settings          both      5          5          0       0
s2c  0x01    GameInit          both      5          5          0       0
s2c  0x17    DeletePlayerUI    both      11         11         4.43    4.43
s2c  0x18    DeletePlayerAnim  both      2          2          0.806   0.806
s2c  0x20    ChecksumReq       both      25         25         0       0
s2c  0x28    ChecksumComplete  both      5          5          0       0
s2c  0x2A    NewPlayerInGame   both      2          2          0.806   0.806
s2c  0x35    MissionInit       both      5          5          2.014   2.014
s2c  0x37    Score             both      7          7          0       0
0 opcodes only in the reference (../../testdata/captures/openbc-session-2.pcap), 0 only in the other (TMPDIR/copy.pcap)
