"""The sha256 and size of every released file of MultiQ, EPITOME, MAKQA and Xing et al. 2024's
released outputs, and the helper that makes a ``DataFile`` of one. (FLORES-200's tarball and the
Language Confusion Benchmark's files record theirs in their entries, in
:mod:`xlcons.data_sources.catalog`.)"""

from __future__ import annotations

from xlcons.data_sources.spec import DataFile

# sha256 and size of the released files, "<source>/<relpath>": (sha256, size).
# Generated from the released copies (shared/data/<source>/<relpath>) with hashlib.
_RELEASED: dict[str, tuple[str, int]] = {
    # multiq
    "multiq/MultiQ.csv": ("296d23a3ea82db0b3f612344c9352056daed849b526450801775529861fa323c", 2311741),
    # epitome
    "epitome/emotional-reactions-reddit.csv": (
        "225b28ffdc257f8a997d557eb937e78b68235e6203c87c7e2203d00fef8545cc",
        1477690,
    ),
    "epitome/interpretations-reddit.csv": ("2cedbe4252c919d22a6f46685afa16d3192a91e3306c2d4a386be12a30ad3f29", 1664973),
    "epitome/explorations-reddit.csv": ("9efa1af8e0537c16894379598f2076cb380ae18aacd9a8d26ebd381f5b7f9645", 1411739),
    # makqa
    "makqa/QA_merged_data_dict_geo.json": ("fadf643961da57309aede55b1ef0a80fed76f4cdbba3fba6c09e0f11776fe7f7", 957215),
    "makqa/QA_merged_data_dict_history.json": (
        "ab961f4c3f6f7ff7893c396f4b7a699621d3e1c6614f4880dc4b44a6fb0963f0",
        1125421,
    ),
    "makqa/QA_merged_data_dict_literature.json": (
        "20cdae0db7c15181b3e9846f072a255d4b0c90674775f50ac26c0a0bc07754a1",
        418602,
    ),
    "makqa/QA_merged_data_dict_movie.json": (
        "9d0a61b2a0e76ea2920d669f084aac1b8c6a4367fae17188e65428a749d96196",
        2327738,
    ),
    "makqa/QA_merged_data_dict_science.json": (
        "37c8f2be70981dbd84a20a654a95abdfe0c6658ad29d2954830e9b0bafd5a7ce",
        1807984,
    ),
    "makqa/QA_merged_data_dict_sport_club.json": (
        "c607f0c8b6bd9c840f5254bf1aaad542497fe78c539dea9d508d8284811eb2e5",
        716333,
    ),
    "makqa/QA_merged_data_dict_timeliness.json": (
        "009dbacba4aae215782ccc6e97a96d618a1a1fd1670ff1493c6146916c908e56",
        1695918,
    ),
    "makqa/QA_example_merged_data_dict_geo.json": (
        "dc8e8c97b34bb31052774b481b61b9dbb2f2c6b61dc45118d7ad4c93f8309e4a",
        55394,
    ),
    "makqa/QA_example_merged_data_dict_history.json": (
        "6ae22f08389d68c576bb83fc1aac3f2efffe575d131aa0ca979b347b6aaba8a6",
        53594,
    ),
    "makqa/QA_example_merged_data_dict_literature.json": (
        "d0b36eb375fac86f53e8569e1f65256f6482b19d3d26df18ab890c18c9e61fea",
        51128,
    ),
    "makqa/QA_example_merged_data_dict_movie.json": (
        "4fc9d707bb6b34f112d927638ac06e08a5da1853db38104b8a238a4b26bb5d8c",
        169585,
    ),
    "makqa/QA_example_merged_data_dict_science.json": (
        "cdf1b0300b582e39d551a3768048939f0672f4ae6a4c68c1902fae3565c2bc59",
        96495,
    ),
    "makqa/QA_example_merged_data_dict_sport_club.json": (
        "fc07e85f41a0a31cc124e2c8431695b9ba68913742cd71ab6535e5f07a87c0ba",
        51906,
    ),
    "makqa/QA_example_merged_data_dict_timeliness.json": (
        "c447088fe6a0a480c6de2e5f4285bbd879cd8b4fea865725d9a01e647a81fda1",
        56193,
    ),
    # released outputs of Xing et al. 2024 (upstream result/<model>/)
    "makqa-released-baichuan2-13b/result_geo.json": (
        "d4cf271f0f3561bc5cea43e1a8d3732b40bb0394a689d701d37b3c9a1507cc48",
        796033,
    ),
    "makqa-released-baichuan2-13b/result_history.json": (
        "3f19df2d22866d1592b5439d91f8fb04dd8d1393c9cbcd61fcc6f550b6c2f491",
        916213,
    ),
    "makqa-released-baichuan2-13b/result_literature.json": (
        "bf770c2d8686d97731f698f1672231d1edbe789f49b2d115e9fde5de4b24276d",
        372966,
    ),
    "makqa-released-baichuan2-13b/result_movie.json": (
        "83cbb7f6e1cc9df0f98b0a522305ed5bbcf1892ddebba105270886cbff3a907e",
        1718304,
    ),
    "makqa-released-baichuan2-13b/result_science.json": (
        "6b027e7c617427831ad48789b40972e2120d27fe8fcd222c197de4f7a1a7191a",
        1523456,
    ),
    "makqa-released-baichuan2-13b/result_sport_club.json": (
        "eb1b96b897dd429c0703023895c32471250da92451c1c840882d077e4c7b4bcf",
        569754,
    ),
    "makqa-released-baichuan2-13b/result_timeliness.json": (
        "ab6887f5d485bf9af8eb5580360f604971ac0d5562000f3cb7e4e8dfaffae453",
        532726,
    ),
    "makqa-released-baichuan2-7b/result_geo.json": (
        "894c6cef580f2bda7d3e1b681b01278244925f0797cba81d90c76ba51c51dfbb",
        1352312,
    ),
    "makqa-released-baichuan2-7b/result_history.json": (
        "b2ce4749f97de66cd683e966ac7c7218b1103b288f4bbe2bed708506db894750",
        902826,
    ),
    "makqa-released-baichuan2-7b/result_literature.json": (
        "64c4b0f3b46af922e6e99cc4e817ab9ea6031bf2120644b464e779a8a8d1a99e",
        371032,
    ),
    "makqa-released-baichuan2-7b/result_movie.json": (
        "17b4a13fc7e33ed5a6d0afde7ba97498721688b0833d110be9455563672466e8",
        1728197,
    ),
    "makqa-released-baichuan2-7b/result_science.json": (
        "e71a6f65d7f3026b79b913898833af3877fca45497df485e984c1e8fda753086",
        1644271,
    ),
    "makqa-released-baichuan2-7b/result_sport_club.json": (
        "d4962aa8a2037b295ebe52dcafebf7b0465588109059a3e0a52de2a50bd48bc8",
        571425,
    ),
    "makqa-released-baichuan2-7b/result_timeliness.json": (
        "aa69b7175e3a919849b487d5df6b52132f072f20224e7370f1fc9862041b4a91",
        799959,
    ),
    "makqa-released-bloomz-1b/result_geo.json": (
        "3fb7f8c01f35e34e70d491cfbbc10aea60a6266f536e69bd0692decb80cf183d",
        664060,
    ),
    "makqa-released-bloomz-1b/result_history.json": (
        "e920d97964cae35fd308faae88236aefcc1576ad443349d62cb00cb69ffca4f0",
        870493,
    ),
    "makqa-released-bloomz-1b/result_literature.json": (
        "f2d83849f622eee1ff33aaba996b17054f3d11e2afb8238c1ba1d37156c20614",
        349390,
    ),
    "makqa-released-bloomz-1b/result_movie.json": (
        "5876b1e59e8856f2bdb2557785eb89a7750eb1c375ba4837dc1f0594b73b6373",
        1420158,
    ),
    "makqa-released-bloomz-1b/result_science.json": (
        "60697ef62338ed5ce33f05e101de731a1fec6886f9b6121bfed8c81557f03094",
        1756363,
    ),
    "makqa-released-bloomz-1b/result_sport_club.json": (
        "76d299bfe86fe281520511cbf3eb0b70be0bbea211962fc6a2a30d2e1d2de639",
        542238,
    ),
    "makqa-released-bloomz-1b/result_timeliness.json": (
        "9a7dd7eadf921a83fe1627ef0c89902b06d59026f583dd423c9d6537dbc86a13",
        524940,
    ),
    "makqa-released-bloomz-3b/result_geo.json": (
        "1d0a2746a633424c94f2eae16867f2003554b77795a5a6fc3e0d23ad635a9f6b",
        627233,
    ),
    "makqa-released-bloomz-3b/result_history.json": (
        "1f0ad9bb26c2f990429ae88c7912adffed41f71ba36dcf872740bca166ea202d",
        861681,
    ),
    "makqa-released-bloomz-3b/result_literature.json": (
        "8eda9a8f4a82ad49eddfe91c0a9042895172115b8c6e091de156c2b6e308a01b",
        344905,
    ),
    "makqa-released-bloomz-3b/result_movie.json": (
        "f1c6bbb53d6c1776138d8830a2a27ef17eabfff4b939db4fce6076e9470db3a9",
        1344989,
    ),
    "makqa-released-bloomz-3b/result_science.json": (
        "95c5da91285f12dc339daec083ab2d52df9f5f97aee5b3731a86f776339c77d1",
        1419556,
    ),
    "makqa-released-bloomz-3b/result_sport_club.json": (
        "bfdb186781b26674ce73689200bc0800adfc2ab202cffe7e8060d15448643796",
        536261,
    ),
    "makqa-released-bloomz-3b/result_timeliness.json": (
        "9b8b5cc109745c74f3efa3af61edaed30bc3bdd24720b47dde6ada609994c7d0",
        520645,
    ),
    "makqa-released-bloomz-560m/result_geo.json": (
        "f963b4671c593028bb33cd450d352f7d5ddd9290f948077ad7a1eb9124838996",
        635988,
    ),
    "makqa-released-bloomz-560m/result_history.json": (
        "22ba580b724de15c6fcd4eb329da1cde24d81bbcb68461f441caa8b00271eec3",
        871783,
    ),
    "makqa-released-bloomz-560m/result_literature.json": (
        "3d6d2f779ee022e845523c5dd276c548eab77d71bbe03653e922d8b29c21aa63",
        353852,
    ),
    "makqa-released-bloomz-560m/result_movie.json": (
        "23eb3f7d7dd7792866d6c521c62ee4ae32addcd60f3ef0c69399b7ae8536c666",
        1390033,
    ),
    "makqa-released-bloomz-560m/result_science.json": (
        "fb9dfec5cb3857adf192eb1bd3b5474bc15a6d4309358580471936c821fb78c6",
        1478725,
    ),
    "makqa-released-bloomz-560m/result_sport_club.json": (
        "b93f473c1aa7a4af31e9a2c5045b1d84a3c369ef06784e7ac2c504a4630974cb",
        534404,
    ),
    "makqa-released-bloomz-560m/result_timeliness.json": (
        "4fcf2db54e223546a3eddebf16e611f39dec4d850019f6403e95ccb4a30da728",
        529539,
    ),
    "makqa-released-bloomz-7b/result_geo.json": (
        "bd13fa03cc741e4be960978d453a26385fc1da6ac7ad72b9a828a0f02d0b2ad2",
        707916,
    ),
    "makqa-released-bloomz-7b/result_history.json": (
        "a67f82bad12a312e61cb4642590a4ebd8d99a134c746903bbd70d6e7860e7416",
        866444,
    ),
    "makqa-released-bloomz-7b/result_literature.json": (
        "cdebe6f78c63bc288e018d9187d8d99c520077c8ed699f3e77deab2e5bde750e",
        349608,
    ),
    "makqa-released-bloomz-7b/result_movie.json": (
        "7eeb64b235a85cad8f448f3ecd6776a5fb694928c54f7fd43605c66e613828f3",
        1713193,
    ),
    "makqa-released-bloomz-7b/result_science.json": (
        "2bc090cd2428ea2c487afef6d94375a993217d558781f7fe193002fbf09ac701",
        1752060,
    ),
    "makqa-released-bloomz-7b/result_sport_club.json": (
        "d041978bacd9795623811112dfa2f95bfd5d0759502b4caf9ce61826476caa9d",
        537949,
    ),
    "makqa-released-bloomz-7b/result_timeliness.json": (
        "926adf789dc7831db94a11fed50752541229c4c21d400c8657db6875f8366d8f",
        521400,
    ),
    "makqa-released-gpt35/result_geo.json": (
        "3f9735487f6c6172ef689ee61fb528147067ee23df159750247eb2b6d4f9ada8",
        644913,
    ),
    "makqa-released-gpt35/result_history.json": (
        "43edabb51d60d484d6bc95621b95f03a2657c121737835225ace0f0f4bd3dac1",
        900992,
    ),
    "makqa-released-gpt35/result_literature.json": (
        "55f8c31a50baa8ab5ae14097dba6807e8e610648f340d911dcf8aaafcc74bd48",
        359819,
    ),
    "makqa-released-gpt35/result_movie.json": (
        "c8eab4a7cced7d33bd3f8a3985b8a34b8dbb86e72f159781ed9ff8adb1896923",
        1455707,
    ),
    "makqa-released-gpt35/result_science.json": (
        "9ad679996b1234bf0c9ef89384dd9eeb9cfe553a4a756ee1c5cea64e6eb04535",
        1313312,
    ),
    "makqa-released-gpt35/result_sport_club.json": (
        "2a53b1743d614a3c5cacbe7724eb5a687230f8120df71c27df8b6564f6e536dd",
        563181,
    ),
    "makqa-released-gpt35/result_timeliness.json": (
        "6400d7efd632ca8753423ec1f1ddaf22daef2836de585bc6ab57e51a65eb8bfa",
        530950,
    ),
    "makqa-released-llama2-13b/result_geo.json": (
        "58cdbe761fcf9eef75a6c2caccc741f348c5e98550c293a834cf67187702f2f1",
        692419,
    ),
    "makqa-released-llama2-13b/result_history.json": (
        "06437dbf3b50390ca6b29990ca39d5c32b458db8d32e85f48cb436250cf9f785",
        1007062,
    ),
    "makqa-released-llama2-13b/result_literature.json": (
        "1d3e1c43ecb9b9ea2f40644619c44766bfa28efb82d6ff4fc85f5dda87a2bd9d",
        400204,
    ),
    "makqa-released-llama2-13b/result_movie.json": (
        "289b0cfed9c2c052bb4589dab7a19aca651c4564710b7bafb52d1d9b4382d8d3",
        1807148,
    ),
    "makqa-released-llama2-13b/result_science.json": (
        "d6181dfeb66504cd93807daf83bf56d2a356efbbc7f15090104dfec1c443e60a",
        1678070,
    ),
    "makqa-released-llama2-13b/result_sport_club.json": (
        "0f7063abde4925706f1c287229ec3b48e0fe24733dbbaee5f7dd590f6725bc0a",
        583730,
    ),
    "makqa-released-llama2-13b/result_timeliness.json": (
        "af3930ec4ab7674c4a546aa9e39351569d4c9939e06a7b8a37094764e1fc45ca",
        530465,
    ),
    "makqa-released-llama2-7b/result_geo.json": (
        "efd23c2ca63cde2ba6b418c70aa60cf65db8d61a812109c169f57c3ba8a5e895",
        1054347,
    ),
    "makqa-released-llama2-7b/result_history.json": (
        "e3a0053dd6c35833f74cb4179577f0848efeb77a49f77249a55c33f076d39b56",
        1399099,
    ),
    "makqa-released-llama2-7b/result_literature.json": (
        "2d985c4b2f539dff8b1524939e992a0ce115ee138f5c92fb2a4c107b55107c25",
        640601,
    ),
    "makqa-released-llama2-7b/result_movie.json": (
        "e49222f091daa223c3978e79006e52d703a53d8ce9671e8f6c02738a256951b3",
        2504536,
    ),
    "makqa-released-llama2-7b/result_science.json": (
        "6c6082309571e8d4d21e96539d720d72195e34e66f0e21722c759eb465a55df8",
        3057968,
    ),
    "makqa-released-llama2-7b/result_sport_club.json": (
        "4000c4d0c5036beb7d2a6c028c35f1d6ef6a7f7a21916e089519b9af7dae5865",
        614705,
    ),
    "makqa-released-llama2-7b/result_timeliness.json": (
        "9606ac2be92ed63a9cffc3505e217a2eee3f96c097e32031939075fe985109db",
        530187,
    ),
    "makqa-released-mistral-7b/result_geo.json": (
        "19e64ed94974be4b11568dbcaac4d8ff7d7a79867f0dc91e0f56ea5b87515ea6",
        1712601,
    ),
    "makqa-released-mistral-7b/result_history.json": (
        "b91c0761925fd969f0b1866ffcb3908bbfd3fa14830bfaa3149c7882af73f0c2",
        1576075,
    ),
    "makqa-released-mistral-7b/result_literature.json": (
        "a074c6390133ff0ca89256e9b9089dfc3f460829fb029957f981c2a7f2730fa4",
        649660,
    ),
    "makqa-released-mistral-7b/result_movie.json": (
        "46d604069496e2ca6799b18380882eb987e823ccf64006be1b32b3f20edb2e5e",
        2957188,
    ),
    "makqa-released-mistral-7b/result_science.json": (
        "1a4b8e85e54e285f70b61ebb44a45e9cc97f87cff69c421a284f193f3a0f0798",
        2548971,
    ),
    "makqa-released-mistral-7b/result_sport_club.json": (
        "fedb8215f56e7d2067f267c9d6eea81787c807b367e5656478832065b5fb69d7",
        794009,
    ),
    "makqa-released-mistral-7b/result_timeliness.json": (
        "9bae965cda0c21e31c69c1e80bfaff42caec5c2692a9b0bc7df8f22946a4a697",
        650476,
    ),
    "makqa-released-mixtral-8x7b/result_geo.json": (
        "222957bde5f0fd97782bbb1d2b7a4741ef23223413768fbbba021536c4ff06e6",
        770493,
    ),
    "makqa-released-mixtral-8x7b/result_history.json": (
        "b5b682d1f0937f4a9369fabf15047b5880155cbc8dedc645b6f3d970d2acbf4d",
        920312,
    ),
    "makqa-released-mixtral-8x7b/result_literature.json": (
        "4b67f020eb4cf3b51b8f6b1ba4ef57d397daf2be77d337c8bf3572f1674df233",
        362815,
    ),
    "makqa-released-mixtral-8x7b/result_movie.json": (
        "5afb6b2ac3e63040ca898d79b8073922582fa31d1bef95b0d768c2a70cb8f131",
        1634046,
    ),
    "makqa-released-mixtral-8x7b/result_science.json": (
        "bba30798288626212144b4c705e4188d35ae1e421a16324adda0960540bf5c84",
        1421739,
    ),
    "makqa-released-mixtral-8x7b/result_sport_club.json": (
        "9523f9778953dd09feeeb931e64936dc13a6b0c40863bfa6fb70190d01e27c38",
        571450,
    ),
    "makqa-released-mixtral-8x7b/result_timeliness.json": (
        "a4f9b0cfaa0f89e64162185efd88e183481849e87d31ac566ebf3348dee50153",
        529291,
    ),
}


def released_file(source: str, relpath: str, upstream: str, kind: str, **checks) -> DataFile:
    sha256, size = _RELEASED[f"{source}/{relpath}"]
    return DataFile(relpath=relpath, upstream=upstream, sha256=sha256, size=size, kind=kind, **checks)
